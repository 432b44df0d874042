"""Everything that talks to GitHub; the only package that imports PyGithub.

Nothing here imports or runs the code of the repository under test.
"""
