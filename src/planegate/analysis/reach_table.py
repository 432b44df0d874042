"""The reach review's capability table: what production code can reach, and how much it matters.

Data only: `analysis/reach.py` walks a module once and looks each construct up here, whatever
its spelling (imports, aliases, `getattr` with a folded name, `vars(m)[...]`). A row names the
rule, the risk (`high`: an error for a person to review; `medium`: a warning) and what the
capability does, in the words the finding uses. docs/findings-hunks.md ("Reach") prints the
same table.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Risk = Literal["high", "medium"]

FRAMES = "PG590"  # frames and tracebacks
INTERPRETER = "PG591"  # interpreter state: sys.modules, vars(sys), gc, trace hooks
DUNDER = "PG592"  # dunder reach into functions, classes and modules
COMPUTED = "PG593"  # getattr/eval/exec/imports with a computed argument
NATIVE = "PG594"  # ctypes, pickle and marshal loads
OUTSIDE = "PG595"  # writes into modules the project does not own; harness names, /proc


@dataclass(frozen=True)
class Capability:
    rule: str
    risk: Risk
    what: str


def _row(rule: str, risk: Risk, what: str) -> Capability:
    return Capability(rule, risk, what)


# `x.NAME` read or written, whatever `x` is (also `getattr(x, "NA" + "ME")`, and a folded
# string equal to NAME handed to anything: attrgetter, __getattribute__, a dict key)
ATTRIBUTES: dict[str, Capability] = {
    "f_back": _row(FRAMES, "high", "walks to the calling frame"),
    "tb_frame": _row(FRAMES, "high", "takes a frame from a traceback"),
    "gi_frame": _row(FRAMES, "high", "takes a generator's frame"),
    "cr_frame": _row(FRAMES, "high", "takes a coroutine's frame"),
    "ag_frame": _row(FRAMES, "high", "takes an async generator's frame"),
    "f_globals": _row(FRAMES, "high", "reads a frame's module namespace"),
    "f_locals": _row(FRAMES, "high", "reads a frame's local variables"),
    "f_builtins": _row(FRAMES, "high", "reads a frame's builtins"),
    "tb_next": _row(FRAMES, "medium", "walks a traceback"),
    "__globals__": _row(DUNDER, "high", "reaches a function's module namespace"),
    "func_globals": _row(DUNDER, "high", "reaches a function's module namespace"),
    "__builtins__": _row(DUNDER, "high", "reaches the builtins every module sees"),
    "__subclasses__": _row(DUNDER, "medium", "lists every subclass loaded, anyone's"),
    "__code__": _row(DUNDER, "medium", "reads a function's code object"),
    "__closure__": _row(DUNDER, "medium", "reads a function's closure cells"),
}

# `x.NAME = ...` (and `setattr(x, "NAME", ...)`, `del x.NAME`), whatever `x` is
WRITTEN_ATTRIBUTES: dict[str, Capability] = {
    "__class__": _row(DUNDER, "high", "changes an object's class"),
    "__code__": _row(DUNDER, "high", "replaces a function's code"),
    "__globals__": _row(DUNDER, "high", "replaces a function's namespace"),
    "__bases__": _row(DUNDER, "high", "changes a class's bases"),
    "__closure__": _row(DUNDER, "high", "replaces a function's closure"),
    "__defaults__": _row(DUNDER, "medium", "changes a function's defaults"),
    "__kwdefaults__": _row(DUNDER, "medium", "changes a function's defaults"),
    "cell_contents": _row(DUNDER, "medium", "rewrites a closure cell"),
}

# dotted names reached through imports, however spelled (`from sys import _getframe as g`,
# `getattr(__import__("s" + "ys"), "_getframe")`): references, calls and imports alike
NAMES: dict[str, Capability] = {
    "sys._getframe": _row(FRAMES, "high", "takes a caller's frame"),
    "sys._current_frames": _row(FRAMES, "high", "takes every thread's frame"),
    "sys._getframemodulename": _row(FRAMES, "high", "names a caller's module"),
    "inspect.currentframe": _row(FRAMES, "high", "takes the current frame"),
    "inspect.stack": _row(FRAMES, "high", "takes every caller's frame"),
    "inspect.trace": _row(FRAMES, "high", "takes the frames of a traceback"),
    "inspect.getouterframes": _row(FRAMES, "high", "walks a frame's callers"),
    "inspect.getinnerframes": _row(FRAMES, "high", "walks a traceback's frames"),
    "traceback.walk_stack": _row(FRAMES, "high", "walks the calling frames"),
    "traceback.walk_tb": _row(FRAMES, "high", "walks a traceback's frames"),
    "traceback.extract_stack": _row(FRAMES, "medium", "reads who called"),
    "sys.modules": _row(INTERPRETER, "high", "reaches every loaded module, the harness's too"),
    "sys.__dict__": _row(INTERPRETER, "high", "reaches the interpreter's state"),
    "sys.settrace": _row(INTERPRETER, "high", "installs a trace hook that sees every frame"),
    "sys.setprofile": _row(INTERPRETER, "high", "installs a profile hook that sees every frame"),
    "threading.settrace": _row(INTERPRETER, "high", "installs a trace hook on every thread"),
    "threading.setprofile": _row(INTERPRETER, "high", "installs a profile hook"),
    "threading.settrace_all_threads": _row(INTERPRETER, "high", "installs a trace hook"),
    "sys.monitoring": _row(INTERPRETER, "high", "installs monitoring callbacks"),
    "sys.addaudithook": _row(INTERPRETER, "high", "sees every audited event"),
    "sys.meta_path": _row(INTERPRETER, "medium", "changes how every module is imported"),
    "sys.path_hooks": _row(INTERPRETER, "medium", "changes how every module is imported"),
    "runpy.run_path": _row(COMPUTED, "high", "runs a file as code"),
    "runpy.run_module": _row(COMPUTED, "high", "runs a module by name"),
    "importlib.util.spec_from_file_location": _row(COMPUTED, "high", "imports a file by path"),
    "importlib.machinery.SourceFileLoader": _row(COMPUTED, "high", "imports a file by path"),
    "builtins.__dict__": _row(DUNDER, "high", "reaches the builtins every module sees"),
    "types.FunctionType": _row(DUNDER, "medium", "builds a function from a code object"),
    "types.CodeType": _row(DUNDER, "medium", "builds a code object"),
    "marshal.loads": _row(NATIVE, "high", "loads a code object from bytes"),
    "marshal.load": _row(NATIVE, "high", "loads a code object from a file"),
    "pickle.loads": _row(NATIVE, "high", "runs whatever the bytes name"),
    "pickle.load": _row(NATIVE, "high", "runs whatever the file names"),
    "_pickle.loads": _row(NATIVE, "high", "runs whatever the bytes name"),
    "_pickle.load": _row(NATIVE, "high", "runs whatever the file names"),
    "pickle.Unpickler": _row(NATIVE, "high", "runs whatever the bytes name"),
}

# every use of these modules: the import, any attribute, any call
MODULES: dict[str, Capability] = {
    "gc": _row(INTERPRETER, "high", "reaches every object on the heap"),
    "ctypes": _row(NATIVE, "high", "reads and writes memory directly"),
    "_ctypes": _row(NATIVE, "high", "reads and writes memory directly"),
    "cffi": _row(NATIVE, "high", "reads and writes memory directly"),
}

# callables whose argument at the given position must be a literal (or fold to one)
COMPUTED_ARGUMENTS: dict[str, tuple[int, Capability]] = {
    "eval": (0, _row(COMPUTED, "high", "runs code built at run time")),
    "exec": (0, _row(COMPUTED, "high", "runs code built at run time")),
    # compile() runs nothing: what runs its code object (exec, eval, FunctionType) is reviewed
    "compile": (0, _row(COMPUTED, "medium", "compiles code built at run time")),
    "__import__": (0, _row(COMPUTED, "high", "imports a module named at run time")),
    "importlib.import_module": (0, _row(COMPUTED, "high", "imports a module named at run time")),
    "importlib.__import__": (0, _row(COMPUTED, "high", "imports a module named at run time")),
    "pkgutil.resolve_name": (0, _row(COMPUTED, "high", "reaches an object named at run time")),
    "getattr": (1, _row(COMPUTED, "medium", "reads an attribute named at run time")),
    "setattr": (1, _row(COMPUTED, "medium", "writes an attribute named at run time")),
    "delattr": (1, _row(COMPUTED, "medium", "deletes an attribute named at run time")),
    "operator.attrgetter": (0, _row(COMPUTED, "medium", "reads an attribute named at run time")),
    "operator.methodcaller": (0, _row(COMPUTED, "medium", "calls a method named at run time")),
}

# the same callables when what they reach is a module (imported, or `__import__(...)`)
ON_MODULE = _row(COMPUTED, "high", "reaches into a module by a name built at run time")
# the builtins that hand out a namespace, called bare (`vars(m)` of a module is MODULE_DICT)
NAMESPACES: dict[str, Capability] = {
    "globals": _row(COMPUTED, "medium", "hands out the module's namespace"),
    "locals": _row(COMPUTED, "medium", "hands out the frame's local namespace"),
    "vars": _row(COMPUTED, "medium", "hands out the frame's local namespace"),
}
MODULE_DICT = _row(DUNDER, "high", "reaches a module's namespace")
LITERAL_CODE = _row(COMPUTED, "medium", "runs code from a string")
SIGNAL_FRAME = _row(FRAMES, "high", "installs a signal handler that uses the frame it is given")
SIGNAL_UNSEEN = _row(FRAMES, "medium", "installs a signal handler the review cannot read")
FOREIGN_WRITE = _row(OUTSIDE, "high", "writes into a module the project does not own")
# the same into a third-party module whose name says nothing of tests (`nox.options.x = ...`,
# a library's settings): high only for the standard library, the harness and `*test*` modules
FOREIGN_SETTING = _row(OUTSIDE, "medium", "sets a value of a third-party module")
# `sys.modules` read for one module by a literal name (`"numpy" in sys.modules`)
MODULES_BY_NAME = _row(INTERPRETER, "medium", "checks whether a module is loaded")

# folded strings: what the text names
HARNESS = frozenset({"pytest", "_pytest", "hypothesis", "_hypothesis", "pluggy", "planegate"})
HARNESS_LITERAL = _row(OUTSIDE, "medium", "names the test harness")
HARNESS_BUILT = _row(OUTSIDE, "high", "builds the name of the test harness from pieces")
PROC = _row(OUTSIDE, "high", "reads the process table (/proc)")
