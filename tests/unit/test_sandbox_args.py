"""The sandbox's pure core: bubblewrap's options from a layout, and which variables look like
credentials."""

from __future__ import annotations

from planegate.runner.sandbox import Layout, arguments, overlaps, secret_names


def pairs(args: list[str], option: str) -> list[str]:
    return [args[i + 1] for i, arg in enumerate(args) if arg == option]


LAYOUT = Layout(
    tree="/tmp/t/tree",
    scratch="/tmp/s",
    masked=("/tmp", "/root", "/run"),
    keep=("/root/.pyenv/versions/3.11", "/usr/lib/python3", "/tmp", "/tmp/t/tree/venv", "x"),
)


def test_everything_is_read_only_but_the_tree_and_the_scratch_folder() -> None:
    args = arguments(LAYOUT)
    assert args[:3] == ["--ro-bind", "/", "/"]
    assert pairs(args, "--bind") == ["/tmp/t/tree", "/tmp/s"]
    assert args.index("--bind") > max(i for i, a in enumerate(args) if a == "--tmpfs")
    assert args[-2:] == ["--chdir", "/tmp/t/tree"]


def test_masked_folders_are_emptied_and_what_the_child_needs_is_mounted_again() -> None:
    args = arguments(LAYOUT)
    assert pairs(args, "--tmpfs") == ["/dev/shm", "/root", "/run", "/tmp"]
    # only paths under a masked folder, never one that holds a masked or writable folder
    assert pairs(args, "--ro-bind-try") == ["/root/.pyenv/versions/3.11"]


def test_a_masked_folder_inside_another_is_mounted_only_when_a_kept_path_holds_it() -> None:
    """Repositories the gate opened under /tmp are gone with /tmp; one inside a kept folder
    (a checkout under the interpreter's prefix, say) keeps its own mask, and the kept folder
    holding it is not mounted again."""
    layout = Layout(
        tree="/tmp/t/tree",
        scratch="/tmp/s",
        masked=("/tmp", "/root", "/tmp/r1", "/tmp/r1/.git", "/root/venv/repo", "/srv/r2"),
        keep=("/root/venv", "/root/venv/lib"),
    )
    args = arguments(layout)
    assert pairs(args, "--tmpfs") == ["/dev/shm", "/root", "/tmp", "/srv/r2", "/root/venv/repo"]
    assert pairs(args, "--ro-bind-try") == ["/root/venv/lib"]


def test_own_namespaces_no_capability_and_no_network_unless_asked() -> None:
    args = arguments(LAYOUT)
    for option in ("--unshare-pid", "--unshare-ipc", "--unshare-net", "--die-with-parent"):
        assert option in args
    assert pairs(args, "--cap-drop") == ["ALL"]
    assert "--hostname" not in args and "--uid" not in args  # the same uid, the same host
    assert "--unshare-user" in args and "--disable-userns" in args  # none nested
    root = arguments(Layout(tree="/w", scratch="/s", masked=(), root=True))
    assert "--unshare-user" not in root  # root needs none, and keeps its uid
    networked = arguments(Layout(tree="/w", scratch="/s", masked=(), network=True))
    assert "--unshare-net" not in networked


def test_a_root_child_gets_a_synthetic_dev_others_the_real_one() -> None:
    assert pairs(arguments(LAYOUT), "--dev-bind") == ["/dev"]
    root = arguments(Layout(tree="/w", scratch="/s", masked=(), root=True))
    assert pairs(root, "--dev") == ["/dev"] and "--dev-bind" not in root


def test_a_masked_folder_inside_the_tree_is_left_alone() -> None:
    args = arguments(Layout(tree="/home/u/t", scratch="/s", masked=("/home/u", "/home/u/t/x")))
    assert pairs(args, "--tmpfs") == ["/dev/shm", "/home/u"]


def test_names_that_look_like_credentials() -> None:
    environ = {
        "GITHUB_TOKEN": "x",
        "GH_TOKEN": "x",
        "NPM_TOKEN": "x",
        "AWS_SECRET_ACCESS_KEY": "x",
        "OPENAI_API_KEY": "x",
        "DB_PASSWORD": "x",
        "MY_SECRET": "x",
        "EMPTY_TOKEN": "",
        "PATH": "/usr/bin",
        "SSH_AUTH_SOCK": "/run/x",
        "TOKENIZERS_PARALLELISM": "false",
        "KEYBOARD": "us",
    }
    assert secret_names(environ) == [
        "AWS_SECRET_ACCESS_KEY",
        "DB_PASSWORD",
        "GH_TOKEN",
        "GITHUB_TOKEN",
        "MY_SECRET",
        "NPM_TOKEN",
        "OPENAI_API_KEY",
    ]


def test_a_folder_overlaps_the_sandbox_where_the_child_may_write_in_or_around_it() -> None:
    layout = Layout(tree="/w/tree", scratch="/s", masked=(), writable=("/extra/out",))
    assert overlaps("/w/tree/.venv/bin", layout)  # inside the tree
    assert overlaps("/extra", layout)  # holds a writable folder
    assert overlaps("/s", layout)
    assert overlaps("bin", layout)  # relative: the child resolves it in its tree
    assert not overlaps("/usr/lib/python3/site-packages", layout)
    assert not overlaps("/w/tree-other", layout)  # a prefix of the name is not a folder
