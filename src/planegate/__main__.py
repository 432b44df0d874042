from planegate.cli import entry

entry()
