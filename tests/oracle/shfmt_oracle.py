#!/usr/bin/env python3
"""shfmt_oracle.py: the command model against a shell parser no one here wrote (SPEC §7.1, §7.2).

For every guard corpus row and for commands made by a small seeded grammar, shfmt (3.6,
`shfmt --to-json`) prints its syntax tree; this script walks it for the simple commands bash would
run (every call with its words; command and process substitutions and backticks are in the tree;
`bash -c 'STRING'` strings, also behind a few wrappers, and `eval` of literal words are parsed
again), and compares them with the simple commands `kill-guard --commands-json=text` finds (each
simple command's words as written). Words are compared where both sides say they are literal.

A difference is a bug in one of the two, settled by what bash does: fix ours. What the command model
finds beyond bash's own parse on purpose is listed in EXTENSIONS by name with a line on why;
places where shfmt 3.6 reads differently from bash are listed in SHFMT_DEVIATIONS.

usage: shfmt_oracle.py --bin DIR --corpus DIR [--count N] [--corpus-rows N] [--seed S] [--verbose]
  --count defaults to $VIBER_ORACLE_COUNT or 2000 generated commands (scripts/fuzz.sh runs more).
  --corpus-rows compares a sample of N corpus rows, drawn with the seed, instead of every row
    (default $VIBER_ORACLE_CORPUS_ROWS or all): the default test suite's short run.
exit: 0 no difference; 1 differences (each printed); 77 shfmt is missing (ctest: skipped).
"""

import argparse
import concurrent.futures
import json
import os
import random
import re
import shutil
import subprocess
import sys

# ---------------------------------------------------------------------------------------------
# What the command model finds on purpose beyond the commands bash's own parse shows. Keyed by the
# first step of a command's wrapper path the oracle does not follow (SPEC §7.1's wrapper table and
# shell strings, §7.2's decisions): (path step name, how) -> why. A name of "*" matches any.
EXTENSIONS = {
    ("*", "wrapper"): "a wrapper runs its operand as a command (sudo, xargs, ssh, …): bash runs the "
                      "wrapper, the wrapper runs the command (§7.1's table; the oracle follows only "
                      "a few plain wrappers itself)",
    ("*", "-exec"): "find -exec / fd -x clauses are commands find runs (§7.1)",
    ("*", "…"): "ssh, watch, cmd /c, wsl join their rest into a command line another shell runs (§7.1)",
    ("*", "-S"): "env -S splits its string into words env reads again (§7.1)",
    ("*", ":::"): "parallel without a command runs each argument as a command line (§7.1)",
    ("*", "<<"): "a shell reading a heredoc as its script (§7.1)",
    ("*", "<<<"): "a shell reading a here-string as its script (§7.1)",
    ("*", "|"): "a shell reading echo/printf/cat output from a pipe as its script (§7.1, §7.2)",
    ("*", "<(…)"): "source or a shell reading a process substitution as its script (§7.1)",
    ("*", "alias"): "an alias set earlier in the command stands for its value (§7.2)",
    ("", "$…"): "a command word whose value the command itself gives (x=pkill; $x, $(echo pkill)) "
                "is that value (§7.2)",
    ("trap", ""): "trap 'STRING' SIG runs STRING (§7.2)",
    ("*", "()"): "a call of a function the command defines reads its body again (§7.3)",
    ("*", "file"): "a script the command wrote with echo, printf or cat, then ran (§7.3)",
    ("oracle", "expansion-command-word"): "bash runs a command word known only at run time "
                 "(`$x`, `$(cmd)`, `\"$@\"`); the model reads the words after it without it, or the "
                 "value the command itself gave it (the words after $0, a literal), and does not "
                 "guess otherwise (§7.1, §7.2)",
    ("oracle", "depth-cap"): "past 32 nesting levels the model skips the rest as opaque text and "
                             "says so (depth_cap_reached; §7.1); bash goes on",
    ("*", "-c"): "a shell string the oracle cannot read as a literal (it holds a substitution or "
                 "an expansion, or it is reached through a wrapper the oracle does not follow, or "
                 "it is `exec \"$@\"`/`$1`, or a variable assigned a literal): the model reads it with "
                 "each substitution as an unknown word (§7.1, §7.2)",
    ("eval", ""): "eval of words that are not all literal: the model joins them as written (§7.1)",
    ("*", "$(…)"): "a substitution inside a string the oracle could not read again (reached "
                   "through an extension above)",
    ("*", "`…`"): "a backtick body inside a string the oracle could not read again",
    ("*", "( )"): "a subshell inside a string the oracle could not read again",
    ("*", ">(…)"): "a process substitution inside a string the oracle could not read again",
}

# Where shfmt 3.6 reads differently from bash (each input matching one is compared no further):
# (name, pattern on the command text, why).
SHFMT_DEVIATIONS = [
    ("comment-backslash", re.compile(r"#[^\n]*\\\n"),
     "shfmt joins the next line to a comment ending in a backslash; bash's comment ends at the "
     "newline (`# note \\⏎pkill x` runs pkill)"),
    ("carriage-return", re.compile(r"\r"), "shfmt reads a CR as whitespace; bash reads it as a word byte"),
    ("subshell-in-subshell", re.compile(r"\(\([^)]*\)\s*\)|\$\(\([^)]*\)\s*;"),
     "shfmt refuses `((cmd) )` and `$((a); (b))`, which bash runs as nested subshells"),
    ("heredoc-closing-paren", re.compile(r"\n[A-Za-z_]+\)"),
     "shfmt refuses a heredoc inside $(…) closed by `EOF)`, which bash accepts"),
    ("continuation-in-operator", re.compile(r"[&|;<>]\\\n|\$\\\n"),
     "shfmt refuses a backslash-newline inside an operator (`&\\⏎&`, `$\\⏎(`), bash removes it"),
    ("ansi-c-in-backquotes", re.compile(r"`[^`'\n]*\$'[^`]*`"),
     "shfmt refuses $'…' inside backquotes, which bash accepts"),
    ("glob-command-word", re.compile(r"(^|[;&|(\s])[\w/.-]*\[[^\]\s]*\][\w.-]*(\s|$)"),
     "shfmt reads `pk[i]ll` in command position as an array or test expression; bash globs it"),
    ("time-p-dashdash", re.compile(r"\btime\s+-p\s+--\s"),
     "bash 5 ends `time -p`'s options at `--`; shfmt 3.6 reads `--` as the command word"),
    ("backquote-in-double-quotes", re.compile(r'"[^"]*`[^`]*\\"'),
     "inside double quotes bash drops the backslash of \\\" in a backquote body; shfmt 3.6 keeps it"),
    ("backquote-dollar", re.compile(r"`[^`]*\\\$"),
     "in a backquote body bash drops the backslash of \\$ before lexing it (`\\$(cmd)` runs cmd); "
     "shfmt 3.6 keeps it"),
    ("heredoc-delimiter-quoted-in-part", re.compile(r"<<-?\s*[A-Za-z_]+[\"'\\]"),
     "a heredoc delimiter quoted in part (`E\"O\"F`) makes the body data in bash; shfmt 3.6 parses "
     "the body for substitutions"),
    ("heredoc-delimiter-expansion", re.compile(r"<<-?\s*\$"),
     "shfmt 3.6 refuses a heredoc delimiter holding `$` (`<<$X`, `<<$'\\u0045OF'`); bash takes the "
     "delimiter by quote removal alone"),
    ("bad-substitution", re.compile(r"\$\{[^}]*;"),
     "shfmt refuses a `${…}` that is no parameter expansion (`${x;y}`); bash parses it (bash -n "
     "accepts it) and fails only when it expands it"),
    ("bash-rejects", None,
     "shfmt and `bash -n` both reject the text as a syntax error (an unclosed quote, parenthesis, "
     "heredoc or compound command, a stray reserved word): the corpus holds it to check the model "
     "survives it; no command list to compare"),
]

SHELLS = {"bash", "sh", "dash", "zsh", "ksh", "mksh", "ash"}

# The oracle's own small wrapper table (from each tool's manual), independent of the model's:
# options taking a value, and the operand words before the command.
PLAIN_WRAPPERS = {
    "sudo": ("ugphCDrtUTR", 0, True),
    "nice": ("n", 0, False),
    "nohup": ("", 0, False),
    "timeout": ("sk", 1, False),
    "stdbuf": ("ioe", 0, False),
    "command": ("", 0, False),
    "env": ("uC", 0, True),
}

# ---------------------------------------------------------------------------------------------
# shfmt's tree -> words


def decode_ansi_c(text):
    out = []
    i = 0
    simple = {"a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r",
              "t": "\t", "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?"}
    while i < len(text):
        c = text[i]
        if c != "\\" or i + 1 >= len(text):
            out.append(c)
            i += 1
            continue
        e = text[i + 1]
        i += 2
        if e in simple:
            out.append(simple[e])
        elif e == "x":
            m = re.match(r"[0-9a-fA-F]{1,2}", text[i:])
            if not m:
                out.append("\\x")
                continue
            out.append(chr(int(m.group(0), 16)))
            i += len(m.group(0))
        elif e in "01234567":
            m = re.match(r"[0-7]{1,3}", text[i - 1:])
            out.append(chr(int(m.group(0), 8) & 0xFF))
            i += len(m.group(0)) - 1
        else:
            return None  # \u, \c and others: compared no further
    return "".join(out)


def unescape_unquoted(value):
    out = []
    i = 0
    while i < len(value):
        if value[i] == "\\" and i + 1 < len(value):
            if value[i + 1] != "\n":
                out.append(value[i + 1])
            i += 2
        else:
            out.append(value[i])
            i += 1
    return "".join(out)


def unescape_double(value):
    out = []
    i = 0
    while i < len(value):
        if value[i] == "\\" and i + 1 < len(value) and value[i + 1] in '$`"\\\n':
            if value[i + 1] != "\n":
                out.append(value[i + 1])
            i += 2
        else:
            out.append(value[i])
            i += 1
    return "".join(out)


def word_text(word):
    """The text bash passes for a shfmt Word, or None when it holds an expansion."""
    parts = word.get("Parts") or []
    out = []
    for index, part in enumerate(parts):
        kind = part.get("Type")
        if kind == "Lit":
            value = part.get("Value", "")
            if index == 0 and value.startswith("~"):
                return None
            if re.search(r"[*?\[]", value) or re.search(r"\{[^}]*(,|\.\.)[^}]*\}", value):
                return None
            out.append(unescape_unquoted(value))
        elif kind == "SglQuoted":
            value = part.get("Value", "")
            if part.get("Dollar"):
                value = decode_ansi_c(value)
                if value is None:
                    return None
            out.append(value)
        elif kind == "DblQuoted":
            if part.get("Dollar"):
                return None
            for inner in part.get("Parts") or []:
                if inner.get("Type") != "Lit":
                    return None
                out.append(unescape_double(inner.get("Value", "")))
        else:
            return None
    return "".join(out)


PARAM_OPERATIONS = ("Exp", "Index", "Slice", "Repl", "Length", "Excl", "Names", "Width", "NestedParam")


def printed_text(name, args):
    """What `echo` / `printf` print for literal arguments (bash's builtins), or None."""
    if name == "echo":
        if args and re.match(r"^-[neE]+$", args[0]):
            return None
        return " ".join(args) + "\n"
    if name != "printf" or not args or args[0].startswith("-"):
        return None
    fmt, rest = args[0], args[1:]
    out = []
    index = 0
    while True:
        start = index
        i = 0
        while i < len(fmt):
            c = fmt[i]
            if c == "\\":
                m = re.match(r"\\(x[0-9a-fA-F]{1,2}|[0-7]{1,3}|.)", fmt[i:], re.S)
                decoded = decode_ansi_c(m.group(0)) if m else None
                if decoded is None:
                    return None
                out.append(decoded)
                i += len(m.group(0))
                continue
            if c != "%":
                out.append(c)
                i += 1
                continue
            m = re.match(r"%([-+ #0]*[0-9.]*)([sbcdiu%])", fmt[i:])
            if m is None or m.group(1):
                return None
            conv = m.group(2)
            i += len(m.group(0))
            if conv == "%":
                out.append("%")
                continue
            arg = rest[index] if index < len(rest) else ""
            if index < len(rest):
                index += 1
            if conv == "b":
                arg = decode_ansi_c(arg)
                if arg is None:
                    return None
            elif conv == "c":
                arg = arg[:1]
            elif conv in "diu":
                arg = arg or "0"
            out.append(arg)
        if index == start or index >= len(rest):
            break
    return "".join(out)


def resolved_text(word, literals):
    """word_text, with `$NAME` / `${NAME}` of a variable the command assigned a literal and a
    `$(echo …)` / backquoted echo or printf of literal words read as bash expands them (SPEC §7.3);
    None when any part stays unknown."""
    out = []
    for part in word.get("Parts") or []:
        kind = part.get("Type")
        if kind == "ParamExp" and not any(part.get(k) for k in PARAM_OPERATIONS if k != "Index"):
            name = (part.get("Param") or {}).get("Value")
            if part.get("Index"):
                # `${x[@]}`, `${x[N]}` of an array of literal elements (§7.3).
                index = word_text(part["Index"])
                name = name + "[" + ("@" if index in ("@", "*") else str(index)) + "]"
            if name not in literals:
                return None
            out.append(literals[name])
        elif kind == "DblQuoted" and not part.get("Dollar"):
            inner = resolved_text({"Parts": part.get("Parts") or []}, literals)
            if inner is None:
                return None
            out.append(inner)
        elif kind == "CmdSubst":
            stmts = part.get("Stmts") or []
            if len(stmts) != 1 or (stmts[0].get("Cmd") or {}).get("Type") != "CallExpr":
                return None
            args = [word_text(a) for a in stmts[0]["Cmd"].get("Args") or []]
            if not args or any(a is None for a in args) or stmts[0]["Cmd"].get("Assigns"):
                return None
            text = printed_text(args[0], args[1:])
            if text is None:
                return None
            out.append(text.rstrip("\n"))
        else:
            text = word_text({"Parts": [part]})
            if text is None:
                return None
            out.append(text)
    return "".join(out)


class Walk:
    """The simple commands bash would run in one shfmt tree, strings read again followed."""

    def __init__(self, parse, depth=0, literals=None):
        self.parse = parse
        self.depth = depth
        self.commands = []
        self.unfollowed = 0  # -c strings or eval words the oracle could not read as literals
        self.deviation = None
        # Variables the command assigned a literal (SPEC §7.2, §7.3): eval reads them in the
        # same shell, so a nested walk for eval shares this table.
        self.literals = {} if literals is None else literals
        # Functions the command defines (their bodies), the calls being read, and the text it
        # wrote to files (§7.3).
        self.functions = {}
        self.calling = []
        self.files = {}

    def remember(self, assigns):
        for assign in assigns or []:
            name = (assign.get("Name") or {}).get("Value")
            if not name:
                continue
            value = assign.get("Value")
            text = None
            for key in [k for k in self.literals if k.startswith(name + "[")]:
                del self.literals[key]
            if assign.get("Array") and not (assign.get("Index") or assign.get("Append")):
                # `x=(WORDS)` of literal elements: `$x`, `${x[@]}`, `${x[N]}` (§7.3).
                elements = [word_text(e.get("Value") or {}) for e in assign["Array"].get("Elems") or []]
                if None not in elements:
                    self.literals[name + "[@]"] = " ".join(elements)
                    for k, element in enumerate(elements):
                        self.literals[name + "[" + str(k) + "]"] = element
                    text = elements[0] if elements else None
            elif not (assign.get("Array") or assign.get("Index") or assign.get("Append")):
                text = resolved_text(value, self.literals) if value else ""
            if text is None:
                self.literals.pop(name, None)
            else:
                self.literals[name] = text

    def visit(self, node):
        if isinstance(node, list):
            for item in node:
                self.visit(item)
            return
        if not isinstance(node, dict):
            return
        kind = node.get("Type")
        if kind == "CallExpr":
            self.visit(node.get("Assigns"))
            args = node.get("Args") or []
            self.visit(args)
            if args:
                words = [word_text(a) for a in args]
                self.commands.append(words)
                if words[0] is None:
                    self.unfollowed += 1  # a command word known only at run time
                    # A command word the command spells out (`x=pkill; "$x" -f vite`,
                    # `` `echo killall` node ``) runs that text with the words after it (§7.3).
                    first = resolved_text(args[0], self.literals)
                    if first is not None and first.split():
                        self.commands.append(first.split() + [word_text(a) for a in args[1:]])
                self.follow(words, args)
                self.call(words)
            else:
                self.remember(node.get("Assigns"))
            return
        if kind == "FuncDecl":
            self.visit(node.get("Body"))  # read where it is defined, and kept after it
            self.functions[(node.get("Name") or {}).get("Value")] = node.get("Body")
            return
        if "Cmd" in node and node.get("Redirs"):
            for key, value in node.items():
                if key not in ("Pos", "End"):
                    self.visit(value)
            self.written(node)
            return
        if kind == "BinaryCmd" and node.get("Op") == 12:
            # `printf %s 'pkill node' | sh`: a shell with no script reads what printf printed.
            self.visit(node.get("X"))
            self.visit(node.get("Y"))
            left = (node.get("X") or {}).get("Cmd") or {}
            right = (node.get("Y") or {}).get("Cmd") or {}
            if left.get("Type") == "CallExpr" and right.get("Type") == "CallExpr":
                lw = [word_text(a) for a in left.get("Args") or []]
                rw = [word_text(a) for a in right.get("Args") or []]
                if lw and None not in lw and rw == [rw[0]] and rw[0] in SHELLS \
                        and not left.get("Assigns") and not (node.get("X") or {}).get("Redirs"):
                    text = printed_text(lw[0], lw[1:])
                    if text is not None:
                        self.again(text)
            return
        if kind == "DeclClause":
            self.visit(node.get("Args"))
            words = [node.get("Variant", {}).get("Value")]
            for assign in node.get("Args") or []:
                if assign.get("Naked"):
                    if assign.get("Name"):
                        words.append(assign["Name"].get("Value"))
                    else:
                        words.append(word_text(assign.get("Value") or {}))
                elif assign.get("Array") or assign.get("Index"):
                    words.append(None)
                else:
                    value = assign.get("Value")
                    text = word_text(value) if value else ""
                    words.append(None if text is None else
                                 assign["Name"]["Value"] + ("+=" if assign.get("Append") else "=") + text)
            self.commands.append(words)
            return
        if kind == "LetClause":
            self.visit(node.get("Exprs"))
            self.commands.append(["let"] + [None] * len(node.get("Exprs") or []))
            return
        for key, value in node.items():
            if key in ("Pos", "End"):
                continue
            self.visit(value)

    def follow(self, words, nodes=None):
        i = 0
        while i < len(words) and words[i] is not None:
            name = os.path.basename(words[i])
            if name not in PLAIN_WRAPPERS:
                break
            values, operands, assignments = PLAIN_WRAPPERS[name]
            i += 1
            if name == "command" and i < len(words) and words[i] in ("-v", "-V"):
                return
            while i < len(words) and words[i] is not None and words[i].startswith("-") and words[i] != "-":
                w = words[i]
                i += 1
                if w == "--":
                    break
                if not w.startswith("--") and len(w) == 2 and w[1] in values:
                    i += 1
            while assignments and i < len(words) and words[i] is not None and re.match(r"^[A-Za-z_]\w*=", words[i]):
                i += 1
            i += operands
        if i >= len(words) or words[i] is None:
            return
        name = os.path.basename(words[i])
        if name in SHELLS:
            j = i + 1
            has_c = False
            while j < len(words) and words[j] is not None and words[j][:1] in "-+" and len(words[j]) > 1:
                w = words[j]
                j += 1
                if w == "--":
                    break
                if w.startswith("--"):
                    if w in ("--rcfile", "--init-file"):
                        j += 1
                    continue
                if w[0] == "-" and "c" in w[1:]:
                    has_c = True
                if w[-1] in "oO" and len(w) == 2:
                    j += 1
            if has_c and j < len(words):
                if words[j] is None:
                    self.unfollowed += 1
                else:
                    self.again(words[j])
            elif not has_c and j < len(words) and words[j] is not None:
                key = words[j][2:] if words[j].startswith("./") else words[j]
                if key in self.files:
                    self.again(self.files[key])  # a script the command wrote (§7.3)
        elif name in ("source", ".") and i + 1 < len(words) and words[i + 1] is not None:
            key = words[i + 1][2:] if words[i + 1].startswith("./") else words[i + 1]
            if key in self.files:
                self.again(self.files[key])
        elif name == "eval":
            rest = words[i + 1:]
            rest_nodes = (nodes or [])[i + 1:]
            if rest and rest[0] == "--":
                rest = rest[1:]
                rest_nodes = rest_nodes[1:]
            if any(w is None for w in rest) and len(rest_nodes) == len(rest):
                # eval of what the command assigned or echoed (§7.3): read as bash expands it.
                rest = [resolved_text(n, self.literals) for n in rest_nodes]
            if any(w is None for w in rest):
                self.unfollowed += 1
            elif rest:
                self.again(" ".join(rest), self.literals)
        elif name == "tmux" and i + 1 < len(words) and None not in words[i + 1:]:
            # tmux new-session … STRING runs STRING; send-keys types a line up to Enter (§7.3).
            sub = words[i + 1]
            rest = words[i + 2:]
            k = 0
            while k < len(rest) and rest[k].startswith("-") and len(rest[k]) == 2:
                k += 2 if rest[k][1] in ("t", "n", "s", "c", "e") else 1
            if sub in ("new-session", "new-window", "split-window", "run-shell") and k < len(rest):
                self.again(" ".join(rest[k:]))
            elif sub == "send-keys" and "Enter" in rest[k:]:
                keys = {"Space": " ", "Tab": "\t"}
                self.again("".join(keys.get(w, w) for w in rest[k:rest.index("Enter", k)]))

    def call(self, words):
        """A call of a function the command defined reads its body with the call's words as the
        positional parameters; a path naming a file the command wrote runs its text (§7.3)."""
        name = words[0]
        if name is None:
            return
        key = name[2:] if name.startswith("./") else name
        if "/" in name and key in self.files:
            self.again(self.files[key])
        if name not in self.functions or name in self.calling or self.depth >= 40:
            return
        literals = dict(self.literals)
        for key in ["@", "*"] + [str(k) for k in range(1, 10)]:
            literals.pop(key, None)
        if None not in words[1:]:
            literals["@"] = literals["*"] = " ".join(words[1:])
            for k, word in enumerate(words[1:10]):
                literals[str(k + 1)] = word
        inner = Walk(self.parse, self.depth + 1, literals)
        inner.functions = self.functions
        inner.calling = self.calling + [name]
        inner.files = self.files
        inner.visit(self.functions[name])
        self.commands.extend(inner.commands)
        self.unfollowed += inner.unfollowed

    def written(self, stmt):
        """`echo … > FILE`, `printf … >> FILE`, `cat > FILE <<EOF`: the text FILE holds now."""
        cmd = stmt.get("Cmd") or {}
        if cmd.get("Type") != "CallExpr" or cmd.get("Assigns"):
            return
        words = [word_text(a) for a in cmd.get("Args") or []]
        if not words or None in words:
            return
        text = None
        if words[0] in ("echo", "printf"):
            text = printed_text(words[0], words[1:])
        elif words == ["cat"]:
            for redir in stmt["Redirs"]:
                if redir.get("Hdoc") is not None:
                    text = word_text(redir["Hdoc"])
        for redir in stmt["Redirs"]:
            target = word_text(redir.get("Word") or {})
            if redir.get("Op") not in (54, 55) or redir.get("N") or target is None:
                continue
            key = target[2:] if target.startswith("./") else target
            if text is None or (redir["Op"] == 55 and key not in self.files):
                self.files.pop(key, None)  # unknown text, or added to a file of unknown text
            elif redir["Op"] == 55:
                self.files[key] += text
            else:
                self.files[key] = text

    def again(self, text, literals=None):
        if self.depth >= 40:
            return
        if re.search(r"\$\{?[@*1-9]", text):
            self.unfollowed += 1  # the positional parameters: words after the string
        tree = self.parse(text)
        if tree is None:
            self.unfollowed += 1
            return
        inner = Walk(self.parse, self.depth + 1, literals)
        inner.visit(tree)
        self.commands.extend(inner.commands)
        self.unfollowed += inner.unfollowed


def shfmt_tree(text):
    """shfmt's tree, or None when shfmt reports a syntax error (exit status 1)."""
    for _ in range(3):  # a timeout or a signal on a loaded machine is no answer: try again
        try:
            result = subprocess.run(["shfmt", "--to-json", "-ln", "bash"],
                                    input=text.encode("utf-8", "surrogateescape"),
                                    capture_output=True, timeout=120)
        except subprocess.TimeoutExpired:
            continue
        if result.returncode == 0:
            return json.loads(result.stdout)
        if result.returncode == 1 and re.match(rb"^(<standard input>:)?\d+:(\d+|\?): ", result.stderr):
            return None  # a syntax error, located
        SHFMT_FAILURES.append(result.stderr[:200])  # anything else: try again
    raise RuntimeError(f"shfmt gave no answer for {text[:80]!r}: {SHFMT_FAILURES[-3:]!r}")


SHFMT_FAILURES = []


def model_batch(binary, texts):
    """--commands-json=text0 over many commands at once: one JSON object per command."""
    data = b"\0".join(t.encode("utf-8", "surrogateescape") for t in texts)
    result = subprocess.run([binary, "--commands-json=text0"], input=data, capture_output=True,
                            timeout=600)
    if result.returncode != 0:
        raise RuntimeError(f"--commands-json failed ({result.returncode}): {result.stderr!r}")
    lines = result.stdout.decode("utf-8").splitlines()
    if len(lines) != len(texts):
        raise RuntimeError(f"--commands-json=text0 printed {len(lines)} lines for {len(texts)} commands")
    return [json.loads(line) for line in lines]


def model_commands(found):
    out = []
    for command in found["commands"]:
        if not command.get("first"):
            continue
        words = [w["text"] if w["literal"] else None for w in command["simple_words"]]
        out.append((words, [(s["name"], s["how"]) for s in command["path"]]))
    return out


def exact(a, b):
    return a == b


def same(a, b):
    return len(a) == len(b) and all(x is None or y is None or x == y for x, y in zip(a, b))


def expanding(bash, model):
    """An unknown word of bash's (an expansion) may stand for any number of the model's words."""
    memo = {}

    def match(i, j):
        if (i, j) in memo:
            return memo[(i, j)]
        if i == len(bash):
            result = j == len(model)
        elif bash[i] is None:
            result = any(match(i + 1, k) for k in range(j, len(model) + 1))
        else:
            result = j < len(model) and (model[j] is None or model[j] == bash[i]) and match(i + 1, j + 1)
        memo[(i, j)] = result
        return result

    return match(0, 0)


def extension_for(path, walk):
    """The listed extension that explains a command only the model found, or None."""
    for name, how in path:
        followed_wrapper = how == "" and name in PLAIN_WRAPPERS
        if how in ("$(…)", "`…`", "( )", "<(…)", ">(…)") and name == "":
            continue  # the oracle's tree holds these
        if followed_wrapper:
            continue
        if how == "-c" and name in SHELLS and walk.unfollowed == 0:
            continue
        if how == "" and name == "eval" and walk.unfollowed == 0:
            continue
        if (name, how) in EXTENSIONS:
            return (name, how)
        if ("*", how) in EXTENSIONS and how != "":
            return ("*", how)
        return ("*", "wrapper") if name else None
    return None


def compare(found, text):
    """(compared, differences, extensions used, deviation name or None) for one command, given
    what the model found in it."""
    tree = shfmt_tree(text)
    if tree is None:
        for name, pattern, _ in SHFMT_DEVIATIONS:
            if pattern is not None and pattern.search(text):
                return 0, [], {}, name
        # Checked, never assumed: bash itself parses the text without running it (-n).
        check = subprocess.run(["bash", "-n"], input=text.encode("utf-8", "surrogateescape"),
                               capture_output=True, timeout=30)
        if check.returncode == 0:
            return 0, [("shfmt refuses what bash parses, in no listed deviation", text)], {}, None
        return 0, [], {}, "bash-rejects"
    walk = Walk(shfmt_tree)
    walk.visit(tree)
    ours = model_commands(found)
    remaining = list(ours)
    unmatched = list(walk.commands)
    for rule in (exact, same, expanding):
        left = []
        # The most specific first (fewest unknown words), so a wildcard never takes the partner
        # of a more specific command.
        unmatched.sort(key=lambda words: sum(w is None for w in words))
        remaining.sort(key=lambda item: sum(w is None for w in item[0]))
        for words in unmatched:
            match = next((k for k, (w, _) in enumerate(remaining) if rule(words, w)), None)
            if match is None:
                left.append(words)
            else:
                remaining.pop(match)
        unmatched = left
    differences = []
    used = {}
    for words in unmatched:
        if found["depth_cap_reached"]:
            key = ("oracle", "depth-cap")
        elif words and words[0] is None:
            key = ("oracle", "expansion-command-word")
        else:
            differences.append(("only bash runs", words))
            continue
        used[key] = used.get(key, 0) + 1
    for words, path in remaining:
        key = extension_for(path, walk)
        if key is None and found["depth_cap_reached"]:
            key = ("oracle", "depth-cap")
        if key is None:
            differences.append(("only the model finds", words, path))
        else:
            used[key] = used.get(key, 0) + 1
    if differences:
        for name, pattern, _ in SHFMT_DEVIATIONS:
            if pattern is not None and pattern.search(text):
                return 0, [], {}, name
    return len(walk.commands), differences, used, None


# ---------------------------------------------------------------------------------------------
# The generator: a small seeded grammar.

NAMES = ["ls", "echo", "grep", "cat", "make", "git", "wc", "sort", "printf", "test", "true", "sed"]
DANGEROUS = ["pkill node", "kill -9 -1", "killall python", "rm -rf build", "git stash", "fuser -k 3000/tcp"]
WRAPPERS = ["sudo -u root", "env A=1", "nice -n 5", "timeout 5", "nohup", "command", "stdbuf -oL"]


class Grammar:
    def __init__(self, rng):
        self.rng = rng
        self.budget = 0

    def argument(self, depth):
        r = self.rng.randrange(13)
        if r == 0:
            return "'sq " + self.rng.choice(["a", ";", "|", "$x", "`x`"]) + "'"
        if r == 1:
            return '"dq $HOME ' + self.rng.choice(["a", ";", "\\\"", "\\$"]) + '"'
        if r == 2:
            return "$'ansi\\x41\\n'"
        if r == 3:
            return "esc\\ aped"
        if r == 4 and depth < 3:
            return '"$(' + self.simple(depth + 1) + ')"'
        if r == 5 and depth < 3:
            return "$( " + self.list_(depth + 1) + ")"
        if r == 6 and depth < 2:
            return "`" + self.rng.choice(NAMES) + " x`"
        if r == 7 and depth < 3:
            return "<(" + self.simple(depth + 1) + ")"
        if r == 8:
            return "${x:-y}"
        if r == 9:
            return "a{b,c}"
        return self.rng.choice(["-l", "x", "src/a.c", "--flag=1", "README.md", "-n", "42"])

    def simple(self, depth):
        if self.budget > 0 and self.rng.randrange(4) == 0:
            self.budget -= 1
            words = self.rng.choice(DANGEROUS)
        else:
            words = self.rng.choice(NAMES)
            for _ in range(self.rng.randrange(4)):
                words += " " + self.argument(depth)
        if self.rng.randrange(6) == 0:
            words = self.rng.choice(WRAPPERS) + " " + words
        if self.rng.randrange(8) == 0:
            words = "X=" + self.rng.choice(["1", "'a b'", "$(date)"]) + " " + words
        if self.rng.randrange(8) == 0:
            words += self.rng.choice([" > .temp/out", " 2>&1", " < /dev/null", " >> log"])
        return words

    def quoted_string(self, text):
        return "'" + text.replace("'", "'\\''") + "'"

    def command(self, depth):
        r = self.rng.randrange(10)
        if r == 0 and depth < 3:
            return "( " + self.list_(depth + 1) + " )"
        if r == 1 and depth < 3:
            return "{ " + self.list_(depth + 1) + "; }"
        if r == 2 and depth < 3:
            return "bash -c " + self.quoted_string(self.list_(depth + 1))
        if r == 3 and depth < 3:
            return self.rng.choice(WRAPPERS) + " sh -c " + self.quoted_string(self.list_(depth + 1))
        if r == 4 and depth < 2:
            return "if " + self.simple(depth) + "; then " + self.list_(depth + 1) + "; fi"
        if r == 5 and depth < 2:
            return "for f in a b; do " + self.list_(depth + 1) + "; done"
        if r == 6 and depth < 2:
            return "while " + self.simple(depth) + "; do " + self.simple(depth + 1) + "; done"
        return self.simple(depth)

    def pipeline(self, depth):
        parts = [self.command(depth) for _ in range(1 + (self.rng.randrange(3) == 0))]
        return " | ".join(parts)

    def list_(self, depth):
        out = self.pipeline(depth)
        for _ in range(self.rng.randrange(3)):
            out += self.rng.choice([" && ", " || ", "; ", " & "]) + self.pipeline(depth)
        return out

    def spelled(self):
        """One dangerous call written out as text a shell then runs (SPEC §7.3): eval of an
        assigned variable (nested once, with $'…' inside), a literal or backquoted command word,
        printf/echo piped or substituted into a shell, tmux strings, PowerShell strings, an array
        run as the command, a function running its arguments, a script written and then run."""
        d = self.rng.choice(DANGEROUS)
        q = self.quoted_string(d)
        first, _, rest = d.partition(" ")
        r = self.rng.randrange(16)
        if r == 0:
            return "c=" + q + '; eval "$c"'
        if r == 1:
            return "c=" + self.quoted_string("c=" + q + '; eval "$c"') + '; eval "$c"'
        if r == 2:
            ansi = "$'\\x%02x%s'" % (ord(d[0]), d[1:])
            return "c=" + self.quoted_string("c=" + ansi + '; eval "$c"') + '; eval "$c"'
        if r == 3:
            return "`echo " + first + "` " + rest
        if r == 4:
            return "x=" + first + '; "$x" ' + rest
        if r == 5:
            return "X=; " + first[:1] + "${X}" + first[1:] + " " + rest
        if r == 6:
            return "printf '%s\\n' " + q + " | " + self.rng.choice(["sh", "bash"])
        if r == 7:
            return "echo " + d + " | sh"
        if r == 8:
            return 'eval "$(echo ' + first + ') ' + rest + '"'
        if r == 9:
            return "tmux new-session -d " + q
        if r == 10:
            return "tmux send-keys -t dev " + q + " Enter"
        if r == 12:
            return "x=(" + d + '); "${x[@]}"'
        if r == 13:
            return 'f() { "$@"; }; f ' + d
        if r == 14:
            return "echo " + q + " > .temp/k.sh; bash .temp/k.sh"
        if r == 15:
            return "cat > .temp/k.sh <<'EOF'\n" + d + "\nEOF\n. .temp/k.sh"
        return self.rng.choice(["pwsh -c ", "powershell -Command "]) + d

    def script(self):
        self.budget = 1
        lines = []
        for _ in range(1 + self.rng.randrange(3)):
            r = self.rng.randrange(6)
            if r == 0:
                quoted = self.rng.randrange(2) == 0
                delimiter = "'EOF'" if quoted else "EOF"
                lines.append("cat <<" + delimiter + "\nbody $(" + self.simple(1) + ") `x`\nEOF")
            elif r == 1:
                lines.append(self.list_(0) + " # a comment; " + self.simple(0))
            else:
                lines.append(self.list_(0))
        if self.budget > 0:
            call = self.spelled() if self.rng.randrange(2) == 0 else self.rng.choice(DANGEROUS)
            lines.insert(self.rng.randrange(len(lines) + 1), call)
        return "\n".join(lines)


# ---------------------------------------------------------------------------------------------

def corpus_rows(directory):
    rows = []
    for name, column in (("kill-guard.tsv", 1), ("shell-guard.tsv", 1)):
        with open(os.path.join(directory, name), encoding="utf-8", errors="surrogateescape") as f:
            for number, line in enumerate(f, 1):
                line = line.rstrip("\n")
                if not line or line.startswith("#"):
                    continue
                fields = line.split("\t")
                if len(fields) <= column:
                    continue
                text = fields[column]
                out = []
                i = 0
                while i < len(text):
                    if text[i] == "\\" and i + 1 < len(text) and text[i + 1] in "nt\\":
                        out.append({"n": "\n", "t": "\t", "\\": "\\"}[text[i + 1]])
                        i += 2
                    else:
                        out.append(text[i])
                        i += 1
                rows.append((f"{name}:{number}", "".join(out).replace("@TREE@", "/tmp/tree")))
    return rows


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--corpus", required=True)
    parser.add_argument("--count", type=int, default=int(os.environ.get("VIBER_ORACLE_COUNT", "2000")))
    parser.add_argument("--corpus-rows", type=int,
                        default=int(os.environ.get("VIBER_ORACLE_CORPUS_ROWS", "0")) or None)
    parser.add_argument("--seed", type=int, default=int(os.environ.get("VIBER_ORACLE_SEED", "25")))
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    if shutil.which("shfmt") is None:
        print("shfmt_oracle: SKIPPED: shfmt is not installed (Debian package shfmt, "
              "scripts/install-deps.sh installs it)")
        return 77
    binary = os.path.join(args.bin, "kill-guard" + (".exe" if os.name == "nt" else ""))
    rng = random.Random(args.seed)
    grammar = Grammar(rng)
    inputs = corpus_rows(args.corpus)
    if args.corpus_rows is not None and args.corpus_rows < len(inputs):
        # A sample of its own generator, so the generated commands stay those of the seed.
        picked = random.Random(args.seed).sample(range(len(inputs)), args.corpus_rows)
        inputs = [inputs[i] for i in sorted(picked)]
    corpus_count = len(inputs)
    inputs += [(f"generated:{k}", grammar.script()) for k in range(args.count)]

    totals = {"compared": 0, "differences": 0, "inputs": len(inputs)}
    extensions = {}
    deviations = {}
    failures = []
    found = []
    for start in range(0, len(inputs), 500):
        found += model_batch(binary, [text for _, text in inputs[start:start + 500]])
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        results = pool.map(lambda item: (item[0], compare(item[1], item[0][1])), zip(inputs, found))
        for (where, text), (compared, differences, used, deviation) in results:
            totals["compared"] += compared
            if deviation is not None:
                if where.startswith("generated:"):
                    failures.append((where, text, [("shfmt refuses a generated command", deviation)]))
                deviations[deviation] = deviations.get(deviation, 0) + 1
                continue
            for key, count in used.items():
                extensions[key] = extensions.get(key, 0) + count
            if differences:
                totals["differences"] += len(differences)
                failures.append((where, text, differences))
    for where, text, differences in failures:
        print(f"DIFFERENCE {where}: {text!r}")
        for d in differences:
            print(f"    {d}")
    print(f"shfmt_oracle: {totals['inputs']} inputs ({corpus_count} corpus rows, {args.count} "
          f"generated, seed {args.seed}); {totals['compared']} simple commands compared; "
          f"{totals['differences']} differences; {sum(extensions.values())} commands found through "
          f"{len(extensions)} listed extensions; {sum(deviations.values())} inputs not compared "
          f"(listed shfmt deviations)")
    for key, count in sorted(extensions.items(), key=lambda kv: -kv[1]):
        print(f"  extension {key[0] or '-'} {key[1] or '-'}: {count}")
    for key, count in sorted(deviations.items(), key=lambda kv: -kv[1]):
        print(f"  not compared ({key}): {count}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
