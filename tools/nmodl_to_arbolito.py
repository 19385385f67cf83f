#!/usr/bin/env python3
"""Translate one NMODL .mod file into one arbolito mechanism header (docs/mechanisms.md).

    nmodl_to_arbolito.py INPUT.mod -o OUTPUT.hpp [--namespace arbolito::nmodl]
    nmodl_to_arbolito.py X.mod Y.mod ... --output-dir DIR [--namespace arbolito]   (DIR/X.hpp, ...)

BlueBrain's NMODL framework (Debian python3-nmodl) parses the file, inlines its PROCEDUREs and
FUNCTIONs and solves its cnexp DERIVATIVE blocks (SympySolverVisitor, the exact exponential
update NEURON's cnexp computes); this script checks that every construct is in the supported
set and writes the header. Anything else is refused: one line "FILE:LINE: CONSTRUCT: reason"
on stderr, exit status 2, no output file.
"""
import argparse
import contextlib
import os
import re
import sys
import tempfile


class Refused(Exception):
    """An input this translator does not turn into a mechanism: its line and the construct."""

    def __init__(self, line, construct, reason):
        super().__init__(reason)
        self.line, self.construct, self.reason = line, construct, reason


# ---------------------------------------------------------------------------------------------
# Lines. The NMODL Python bindings give no source positions, so constructs are found again in
# the source with its comments blanked out (line structure kept).

class Locator:
    def __init__(self, text):
        def blank(m):
            return re.sub(r"[^\n]", " ", m.group(0))
        t = re.sub(r"(?ms)^\s*COMMENT\b.*?^\s*ENDCOMMENT\b", blank, text)
        t = re.sub(r"(?m)[:?].*$", blank, t)
        self.lines = t.split("\n")

    def find(self, pattern, start=1):
        """First line, at or after start, where the regular expression matches; else start."""
        rx = re.compile(pattern)
        for n in range(max(start, 1), len(self.lines) + 1):
            if rx.search(self.lines[n - 1]):
                return n
        return start


# ---------------------------------------------------------------------------------------------
# What is supported.

BUILTIN_FUNCTIONS = {"exp", "log", "pow", "fabs"}
# NEURON's variables a mechanism may read; where each is available (arbolito's functions).
BUILTIN_VARIABLES = {"v", "celsius", "dt", "t"}
CPP_RESERVED = set("""alignas alignof and and_eq asm auto bitand bitor bool break case catch char
char16_t char32_t class compl const constexpr const_cast continue decltype default delete do double
dynamic_cast else enum explicit export extern false float for friend goto if inline int long
mutable namespace new noexcept not not_eq nullptr operator or or_eq private protected public
register reinterpret_cast return short signed sizeof static static_assert static_cast struct
switch template this thread_local throw true try typedef typeid typename union unsigned using
virtual void volatile wchar_t while xor xor_eq T math std arbolito Globals MechKind Quantity
MechanismDefaults Param State name kind params states globals init current advance on_event
select""".split())

# Top-level blocks: those translated, those ignored (no effect on the numbers) and the keyword
# that finds each refused one in the source.
TRANSLATED_BLOCKS = {"NeuronBlock", "UnitBlock", "ParamBlock", "AssignedBlock", "StateBlock",
                     "ConstantBlock", "InitialBlock", "BreakpointBlock", "DerivativeBlock",
                     "ProcedureBlock", "FunctionBlock", "NetReceiveBlock", "KineticBlock", "LinearBlock"}
IGNORED_BLOCKS = {"Model", "BlockComment", "LineComment", "IndependentBlock", "UnitState"}
KEYWORDS = {"KineticBlock": "KINETIC", "LinearBlock": "LINEAR", "NonLinearBlock": "NONLINEAR",
            "Verbatim": "VERBATIM", "FunctionTableBlock": "FUNCTION_TABLE", "DiscreteBlock": "DISCRETE",
            "BeforeBlock": "BEFORE", "AfterBlock": "AFTER", "ConstructorBlock": "CONSTRUCTOR",
            "DestructorBlock": "DESTRUCTOR", "Include": "INCLUDE", "PartialBlock": "PARTIAL",
            "TableStatement": "TABLE", "WhileStatement": "WHILE", "FromStatement": "FROM",
            "WatchStatement": "WATCH", "LagStatement": "LAG", "ProtectStatement": "PROTECT",
            "MutexLock": "MUTEXLOCK", "LocalListStatement": "LOCAL", "MutexUnlock": "MUTEXUNLOCK", "Useion": "USEION",
            "Pointer": "POINTER", "BbcorePointer": "BBCOREPOINTER", "External": "EXTERNAL",
            "ElectrodeCurrent": "ELECTRODE_CURRENT", "FactorDef": "=", "Conserve": "CONSERVE",
            "ReactionStatement": "~", "ForNetcon": "FOR_NETCONS", "Sens": "SENS",
            "CompartmentStatement": "COMPARTMENT", "LonDifuse": "LONGITUDINAL_DIFFUSION"}
WHY = {"TableStatement": "TABLE is not supported yet (arbolito computes the rates exactly)",
       "LocalListStatement": "a LOCAL outside the blocks (a value kept between them) is not supported yet",
       "Verbatim": "C code in VERBATIM cannot run on arbolito's backends"}


def kind_of(node):
    return node.get_node_type_name()


# Unit factors in UNITS, with NEURON 8.2's values (its nrnunits.lib, the 2019 SI constants; the
# same numbers as hoc's FARADAY and R).
FACTORS = {"(faraday)(coulombs)": 96485.33212331001, "(faraday)(coulomb)": 96485.33212331001,
           "(faraday)(kilocoulombs)": 96.48533212331001, "(k-mole)(joule/degC)": 8.31446261815324,
           "(k)(joule/degC)": 1.380649e-23, "(e)(coulombs)": 1.602176634e-19, "(e)(coulomb)": 1.602176634e-19}

# Ions NEURON knows without a VALENCE.
ION_VALENCE = {"na": 1, "k": 1, "ca": 2}
# An ion's variables: NEURON's name from the ion's, the slot in arbolito's per-instance ion
# values (ion[4j + slot], mechanisms/ion.hpp) and the flags of reading and of writing it.
ION_VARS = [(lambda x: "e" + x, 0, "ion_read_e", None),
            (lambda x: x + "i", 1, "ion_read_xi", "ion_write_xi"),
            (lambda x: x + "o", 2, "ion_read_xo", "ion_write_xo"),
            (lambda x: "i" + x, 3, "ion_read_i", "ion_write_i")]


# ---------------------------------------------------------------------------------------------
# The module: its declarations, read from the parsed (not yet inlined) program.

class Module:
    def __init__(self, program, loc):
        self.loc = loc
        self.title = ""
        self.suffix = None
        self.point_process = False
        self.currents = []       # NONSPECIFIC_CURRENT names, in declaration order
        self.params = []         # (name, unit, default, min)
        self.states = []         # (name, unit)
        self.assigned = []       # names (not NEURON's built-ins, not currents)
        self.constants = []      # (name, value)
        self.functions = set()   # FUNCTION and PROCEDURE names
        self.blocks = {}         # kind -> node (INITIAL, BREAKPOINT, NET_RECEIVE)
        self.derivatives = {}    # name -> node
        self.kinetics = {}       # name -> node
        self.linears = {}        # name -> node
        self.ions = []           # (ion, valence, flags)
        self.ion_read = {}       # variable -> ion[] index (e, Xi, Xo, or the ion's current read)
        self.ion_current = {}    # written current variable -> ion slot j
        self.ion_conc = {}       # written concentration variable -> (ion slot j, "xi" or "xo")
        self.ion_state = []      # per ion slot: the state written to its concentration, or None
        self.renamed = {}        # C++ name -> the file's name (names sympy reserves)
        for b in program.blocks:  # the ions first: PARAMETER and ASSIGNED may redeclare their names
            if kind_of(b) == "NeuronBlock":
                self.read_ions(b)
        for b in program.blocks:
            k = kind_of(b)
            if k in IGNORED_BLOCKS:
                if k == "Model":
                    self.title = b.title.eval().strip()
                continue
            if k not in TRANSLATED_BLOCKS:
                raise self.refuse(k)
            getattr(self, "read_" + k)(b)
        if self.suffix is None:
            raise Refused(1, "NEURON", "no SUFFIX or POINT_PROCESS")
        for n, (j, _) in self.ion_conc.items():
            if self.ion_state[j] is None:
                raise Refused(self.loc.find(r"\bWRITE\b.*\b%s\b" % n), n, "a written concentration must be a STATE")
        if "BreakpointBlock" not in self.blocks:
            raise Refused(1, "BREAKPOINT", "no BREAKPOINT block: the mechanism has no current")
        declared = [p[0] for p in self.params] + [s[0] for s in self.states] + self.assigned + \
            self.currents + [c[0] for c in self.constants]
        for n in declared:
            if n in CPP_RESERVED or n.startswith("arb_"):
                raise Refused(self.loc.find(r"\b%s\b" % n), n,
                              "the name is reserved in the generated C++ (rename it)")
        if len(set(declared)) != len(declared):
            dup = sorted({n for n in declared if declared.count(n) > 1})[0]
            raise Refused(self.loc.find(r"\b%s\b" % dup), dup, "declared twice")

    def refuse(self, k, start=1):
        kw = KEYWORDS.get(k, k)
        line = self.loc.find(r"(^|\W)%s(\W|$)" % re.escape(kw), start)
        return Refused(line, kw, WHY.get(k, kw + " is not supported yet"))

    def read_NeuronBlock(self, b):
        for s in b.statement_block.statements:
            k = kind_of(s)
            if k == "Suffix":
                self.suffix = s.name.get_node_name()
                self.point_process = s.type.get_node_name() == "POINT_PROCESS"
            elif k == "Nonspecific":
                self.currents += [c.get_node_name() for c in s.currents]
            elif k == "Useion":
                pass  # read_ions
            elif k in ("Range", "Global", "ThreadSafe", "LineComment", "BlockComment"):
                pass  # every PARAMETER becomes a per-instance parameter; ASSIGNED are locals
            else:
                raise self.refuse(k)

    def read_ions(self, b):
        for s in b.statement_block.statements:
            if kind_of(s) != "Useion":
                continue
            ion = s.name.get_node_name()
            line = self.loc.find(r"\bUSEION\s+%s\b" % re.escape(ion))
            if any(i[0] == ion for i in self.ions):
                raise Refused(line, "USEION %s" % ion, "the ion is declared twice")
            if s.valence is not None:
                valence = int(round(float(s.valence.value.eval())))
                if valence == 0:
                    raise Refused(line, "VALENCE", "an ion's valence may not be 0")
            elif ion in ION_VALENCE:
                valence = ION_VALENCE[ion]
            else:
                raise Refused(line, "USEION %s" % ion, "an ion other than na, k, ca needs its VALENCE")
            j = len(self.ions)
            names = {f(ion): (slot, rf, wf) for f, slot, rf, wf in ION_VARS}
            flags = []
            for r in s.readlist:
                n = r.get_node_name()
                if n not in names:
                    raise Refused(line, n, "not a variable of ion %s (e%s, %si, %so, i%s)" % (ion, ion, ion, ion, ion))
                flags.append(names[n][1])
                self.ion_read[n] = 4 * j + names[n][0]
            for w in s.writelist:
                n = w.get_node_name()
                if n not in names or names[n][2] is None:
                    raise Refused(line, n, "a mechanism may write %si, %so and i%s of ion %s" % (ion, ion, ion, ion))
                flags.append(names[n][2])
                if names[n][0] == 3:
                    if n in self.ion_read:
                        raise Refused(line, n, "an ion current both read and written is not supported")
                    self.ion_current[n] = j
                    self.currents.append(n)
                else:
                    self.ion_read.pop(n, None)  # a written concentration is the mechanism's own state
                    self.ion_conc[n] = (j, "xi" if names[n][0] == 1 else "xo")
            self.ions.append((ion, valence, flags or ["0"]))
            self.ion_state.append(None)

    def is_ion_variable(self, n):
        return n in self.ion_read or n in self.ion_current or n in self.ion_conc

    def read_UnitBlock(self, b):
        from nmodl import dsl
        for d in b.definitions:
            if kind_of(d) == "FactorDef":
                text = re.sub(r"\s+", "", dsl.to_nmodl(d))
                m = re.fullmatch(r"(\w+)=(\(.*)", text)
                if not m or m.group(2) not in FACTORS:
                    name = m.group(1) if m else "="
                    raise Refused(self.loc.find(r"\b%s\s*=" % re.escape(name), self.loc.find(r"\bUNITS\b")), name,
                                  "the unit factor %s is not known (known: %s)"
                                  % (m.group(2) if m else text, ", ".join(sorted(FACTORS))))
                self.constants.append((m.group(1), FACTORS[m.group(2)]))
            elif kind_of(d) != "UnitDef":
                raise self.refuse(kind_of(d), self.loc.find(r"\bUNITS\b"))

    def read_ParamBlock(self, b):
        for s in b.statements:
            if kind_of(s) != "ParamAssign":
                continue
            n = s.name.get_node_name()
            if n in BUILTIN_VARIABLES or self.is_ion_variable(n):
                continue  # NEURON's own value is used (celsius per run; the ion's values)
            unit = s.unit.name.eval() if s.unit else "1"
            default = float(s.value.eval()) if s.value else 0.0
            lo = float(s.limit.min.eval()) if s.limit else None
            self.params.append((n, unit, default, lo))

    def scalar_definitions(self, b, what):
        """(definition, name) of each declaration in ASSIGNED or STATE block B; an array one
        is refused (WHAT names the block's kind of name in the reason)."""
        for d in b.definitions:
            if kind_of(d) != "AssignedDefinition":
                continue
            n = d.name.get_node_name()
            if d.length is not None:
                raise Refused(self.loc.find(r"\b%s\s*\[" % n), n, "array %s are not supported yet" % what)
            yield d, n

    def read_AssignedBlock(self, b):
        for _, n in self.scalar_definitions(b, "variables"):
            if n in ("area", "diam"):
                raise Refused(self.loc.find(r"\b%s\b" % n), n, "%s is not supported yet" % n)
            if self.is_ion_variable(n) and n not in self.ion_current:
                if n in self.ion_conc:
                    raise Refused(self.loc.find(r"\b%s\b" % n), n, "a written concentration must be a STATE")
                continue
            if n not in BUILTIN_VARIABLES and n not in self.currents:
                self.assigned.append(n)

    def read_StateBlock(self, b):
        for d, n in self.scalar_definitions(b, "states"):
            if n in self.ion_read or n in self.ion_current:
                raise Refused(self.loc.find(r"\b%s\b" % n), n, "an ion variable the mechanism does not write "
                              "may not be a STATE")
            if n in self.ion_conc:
                self.ion_state[self.ion_conc[n][0]] = len(self.states)
            self.states.append((n, d.unit.name.eval() if d.unit else "1"))

    def read_ConstantBlock(self, b):
        for s in b.statements:
            if kind_of(s) == "ConstantStatement":
                c = s.constant
                self.constants.append((c.name.get_node_name(), float(c.value.eval())))

    def read_InitialBlock(self, b):
        self.blocks["InitialBlock"] = b

    def read_BreakpointBlock(self, b):
        self.blocks["BreakpointBlock"] = b

    def read_NetReceiveBlock(self, b):
        if not self.point_process:
            raise Refused(self.loc.find(r"\bNET_RECEIVE\b"), "NET_RECEIVE", "only a POINT_PROCESS receives events")
        if len(b.parameters) != 1:
            raise Refused(self.loc.find(r"\bNET_RECEIVE\b"), "NET_RECEIVE",
                          "exactly one argument (the weight) is supported")
        self.blocks["NetReceiveBlock"] = b

    def read_DerivativeBlock(self, b):
        self.derivatives[b.name.get_node_name()] = b

    def read_KineticBlock(self, b):
        self.kinetics[b.name.get_node_name()] = b

    def read_LinearBlock(self, b):
        self.linears[b.name.get_node_name()] = b

    def read_ProcedureBlock(self, b):
        self.functions.add(b.name.get_node_name())

    def read_FunctionBlock(self, b):
        self.functions.add(b.name.get_node_name())


# ---------------------------------------------------------------------------------------------
# C++ from the inlined program. Every value is of type T (double, or Lanes<W> on the CPU); an
# if/else becomes masked assignments (x = select(mask, new, x)), as every SIMD lane must run
# both branches; in BREAKPOINT each value that depends on v carries its derivative by v
# (forward differentiation of the code as written), which gives the conductance.

ZERO, ONE = "0", "1"
PRECEDENCE = {"||": 1, "&&": 2, "==": 3, "!=": 3, "<": 4, ">": 4, "<=": 4, ">=": 4, "+": 5, "-": 5,
              "*": 6, "/": 6, "^": 7}


def enclosed(x):
    """Whether x's first parenthesis closes at its end: "(a + b)", not "(a) * (b)"."""
    if not (x.startswith("(") and x.endswith(")")):
        return False
    depth = 0
    for i, ch in enumerate(x):
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0 and i < len(x) - 1:
            return False
    return True


def paren(x):
    """x in parentheses, unless it is one name, number or call, or already enclosed."""
    if re.fullmatch(r"[\w.]+", x) or re.fullmatch(r"[\w:]+\((?:[^()]|\([^()]*\))*\)", x) or enclosed(x):
        return x
    return "(%s)" % x


def as_t(x):
    """x as a T (a number literal becomes T's value)."""
    return "T(%s)" % (x[1:-1] if enclosed(x) else x)


UNSIGNED = r"(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?"  # a number literal
LITERAL = re.compile(r"-?%s|\(-?%s\)" % (UNSIGNED, UNSIGNED))


def quotient(a, b):
    """C++ of a / b: math::quotient (on the device one copy of the division that callers
    call, core/math.hpp), but a literal over a literal as such (the compiler folds it)."""
    if LITERAL.fullmatch(a) and LITERAL.fullmatch(b):
        return "%s / %s" % (a, b)
    return "math::quotient(%s, %s)" % (as_t(a), as_t(b))


def number(text, value):
    if re.fullmatch(UNSIGNED, text):
        return text + ".0" if re.fullmatch(r"\d+", text) else text
    return repr(float(value))


class Emitter:
    """The statements of one arbolito function."""

    def __init__(self, mod, block_name, block_line, values, writable, differentiate=False):
        self.mod, self.block_name, self.line = mod, block_name, block_line
        self.values = values          # names with a C++ value on entry (parameters, states, built-ins)
        self.writable = writable      # of those, the names this function may assign
        self.assigned = set(mod.assigned) | set(mod.currents)
        self.defined = set()          # ASSIGNED names certainly set so far
        self.used = set()             # entry values read or written
        self.locals = [set()]
        self.out = []
        self.depth = 2
        self.masks = 0
        self.mask = None
        self.diff = differentiate
        self.has_d = set()            # names whose derivative by v may be nonzero
        self.solve_hook = None        # f(emitter, SolveBlock) for a SOLVE inside the block
        self.tmp = 0

    # Expressions ----------------------------------------------------------------------------
    def refuse(self, construct, reason):
        construct = self.mod.renamed.get(construct, construct)
        pattern = r"\b%s\b" % re.escape(construct) if re.fullmatch(r"\w+", construct) else re.escape(construct)
        return Refused(self.mod.loc.find(pattern, self.line), construct, reason)

    def is_local(self, n):
        return any(n in s for s in self.locals)

    def name(self, n):
        if self.is_local(n):
            return n
        if n in self.assigned:
            if n not in self.defined:
                raise self.refuse(n, "ASSIGNED %s is read in %s before it is set there (values kept "
                                     "between blocks are not supported yet)" % (n, self.block_name))
            return n
        if n in self.values:
            self.used.add(n)
            return n
        if n in BUILTIN_VARIABLES:
            raise self.refuse(n, "%s is not available in %s" % (n, self.block_name))
        raise self.refuse(n, "unknown name %s" % n)

    def expr(self, e):
        """(C++ text, derivative by v: ZERO, ONE or C++ text)."""
        k = kind_of(e)
        if k == "WrappedExpression":
            return self.expr(e.expression)
        if k == "ParenExpression":
            x, d = self.expr(e.expression)
            return paren(x), d if d in (ZERO, ONE) else paren(d)
        if k in ("Double", "Integer", "Float"):
            return number(str(e.value), e.eval()), ZERO
        if k == "DoubleUnit":
            return self.expr(e.value)
        if k in ("Name", "VarName"):
            if k == "VarName" and e.index is not None:
                raise self.refuse(e.get_node_name(), "array elements are not supported yet")
            n = e.get_node_name()
            x = self.name(n)
            if not self.diff:
                return x, ZERO
            if n == "v" and not self.is_local(n):
                return x, ONE
            return x, ("d_" + n) if n in self.has_d else ZERO
        if k == "UnaryExpression":
            op = e.op.eval()
            x, d = self.expr(e.expression)
            if kind_of(e.expression) == "BinaryExpression":
                x = paren(x)
            if op == "!":
                return "!%s" % paren(x), ZERO
            return "-%s" % x, ZERO if d == ZERO else "-%s" % paren(d)
        if k == "BinaryExpression":
            return self.binary(e)
        if k == "FunctionCall":
            return self.call(e)
        raise self.refuse(e.get_nmodl_name() if hasattr(e, "get_nmodl_name") else k,
                          "expression %s is not supported" % k)

    def binary(self, e):
        op = e.op.eval()
        a, da = self.expr(e.lhs)
        b, db = self.expr(e.rhs)
        # C++ parentheses where the tree's grouping differs from C++'s precedence.
        if kind_of(e.lhs) == "BinaryExpression" and PRECEDENCE[e.lhs.op.eval()] < PRECEDENCE[op]:
            a = paren(a)
        if kind_of(e.rhs) == "BinaryExpression" and (PRECEDENCE[e.rhs.op.eval()] < PRECEDENCE[op] or (
                PRECEDENCE[e.rhs.op.eval()] == PRECEDENCE[op] and op in ("-", "/", "+", "*"))):
            b = paren(b)
        if op in ("<", ">", "<=", ">=", "==", "!="):
            return "%s %s %s" % (as_t(a), op, b), ZERO
        if op in ("&&", "||"):
            return "%s %s %s" % (a, op, b), ZERO
        if op == "^":
            return self.pow(a, da, b, db)
        if op in ("+", "-"):
            if da == ZERO and db == ZERO:
                d = ZERO
            elif db == ZERO:
                d = da
            elif da == ZERO:
                d = db if op == "+" else "-(%s)" % db
            else:
                d = "%s %s %s" % (da, op, db)
            return "%s %s %s" % (a, op, b), d
        if op == "*":
            terms = []
            if da != ZERO:
                terms.append(b if da == ONE else "%s * %s" % (da, b))
            if db != ZERO:
                terms.append(a if db == ONE else "%s * %s" % (a, db))
            return "%s * %s" % (a, b), " + ".join("(%s)" % t for t in terms) if terms else ZERO
        if op == "/":
            if db == ZERO:
                d = ZERO if da == ZERO else quotient("1.0" if da == ONE else da, b)
            else:
                d = quotient("(%s) * (%s) - (%s) * (%s)" % (da, b, a, db), "(%s) * (%s)" % (b, b))
            return quotient(a, b), d
        raise self.refuse(op, "operator %s is not supported" % op)

    def pow(self, a, da, b, db):
        # a^2 as a product: what the host's compiler makes of pow(a, 2.0) already, and CUDA's
        # pow (a call to its general routine) is not always that product's bits.
        square = b.strip("() ") == "2.0"
        x = "math::square(%s)" % as_t(a) if square else "math::pow(%s, %s)" % (as_t(a), as_t(b))
        if da == ZERO and db == ZERO:
            return x, ZERO
        if db == ZERO:  # d a^b = b a^(b-1) da
            return x, "T(%s) * math::pow(T(%s), T(%s) - 1.0) * (%s)" % (b, a, b, da)
        return x, "%s * ((%s) * math::log(T(%s)) + %s)" % (x, db, a, quotient("T(%s) * (%s)" % (b, da), a))

    def call(self, e):
        f = e.get_node_name()
        if f not in BUILTIN_FUNCTIONS:
            fo = self.mod.renamed.get(f, f)
            if f in self.mod.functions:
                raise self.refuse(f, "the call of %s could not be inlined" % fo)
            raise self.refuse(f, "function %s is not supported" % fo)
        args = [self.expr(a) for a in e.arguments]
        want = 2 if f == "pow" else 1
        if len(args) != want:
            raise self.refuse(f, "%s takes %d argument(s)" % (f, want))
        if f == "pow":
            return self.pow(args[0][0], args[0][1], args[1][0], args[1][1])
        (a, da), = args
        x = "math::%s(%s)" % (f, as_t(a))
        if da == ZERO:
            return x, ZERO
        if f == "exp":
            return x, "%s * (%s)" % (x, da)
        if f == "log":
            return x, quotient(da, a)
        return x, "math::select(T(%s) < 0.0, T(-(%s)), T(%s))" % (a, da, da)  # fabs

    # Statements -----------------------------------------------------------------------------
    def emit(self, text):
        self.out.append("    " * self.depth + text)

    def assign(self, n, rhs, drhs):
        if self.is_local(n):
            pass
        elif n in self.assigned:
            if self.mask is None:
                self.defined.add(n)  # declared at the top of the function (Translator.header)
        elif n in self.writable:
            self.used.add(n)
        elif n == "v" and not self.diff:
            pass  # the function's own copy of v (NEURON's mechanisms hold one too)
        elif n in self.values or n in BUILTIN_VARIABLES:
            raise self.refuse(n, "%s may not be assigned in %s" % (n, self.block_name))
        else:
            raise self.refuse(n, "unknown name %s" % n)
        if self.mask is None:
            self.emit("%s = %s;" % (n, rhs))
        else:
            self.emit("%s = math::select(%s, %s, %s);" % (n, self.mask, as_t(rhs), n))
        if self.diff:
            if drhs != ZERO or n in self.has_d:
                self.has_d.add(n)
                d = "T(1.0)" if drhs == ONE else as_t(drhs) if drhs != ZERO else "T(0.0)"
                if self.mask is None:
                    self.emit("d_%s = %s;" % (n, d))
                else:
                    self.emit("d_%s = math::select(%s, %s, d_%s);" % (n, self.mask, d, n))

    def statements(self, block):
        for s in block.statements:
            self.statement(s)

    def statement(self, s):
        k = kind_of(s)
        if k in ("UnitState", "LineComment", "BlockComment", "ConductanceHint"):
            return
        if k == "LocalListStatement":
            for v in s.variables:
                n = v.get_node_name()
                if n in CPP_RESERVED or n.startswith("arb_") or n.startswith("d_"):
                    raise self.refuse(n, "the name is reserved in the generated C++ (rename it)")
                self.locals[-1].add(n)
                self.emit("[[maybe_unused]] T %s = 0.0;" % n)
                if self.diff:
                    self.emit("[[maybe_unused]] T d_%s = 0.0;" % n)
            return
        if k == "StatementBlock":
            self.emit("{")
            self.depth += 1
            self.locals.append(set())
            self.statements(s)
            self.locals.pop()
            self.depth -= 1
            self.emit("}")
            return
        if k == "ExpressionStatement" and kind_of(s.expression) in ("StatementBlock", "SolveBlock"):
            self.statement(s.expression)
            return
        if k == "ExpressionStatement":
            e = s.expression
            # The cnexp solver leaves its solution in the equation's node: x = ... (no prime).
            if kind_of(e) == "DiffEqExpression" and kind_of(e.expression.lhs) != "PrimeName":
                e = e.expression
            if kind_of(e) == "BinaryExpression" and e.op.eval() == "=":
                n = e.lhs.get_node_name()
                if kind_of(e.lhs) == "VarName" and e.lhs.index is not None:
                    raise self.refuse(n, "array elements are not supported yet")
                rhs, d = self.expr(e.rhs)
                self.assign(n, rhs, d)
                return
            if kind_of(e) == "DiffEqExpression":
                raise self.refuse("'", "a differential equation the cnexp solver could not solve exactly")
            if kind_of(e) == "FunctionCall":
                raise self.refuse(e.get_node_name(), "the call of %s could not be inlined" % e.get_node_name())
            raise self.refuse(kind_of(e), "statement %s is not supported" % kind_of(e))
        if k == "IfStatement":
            self.if_statement(s)
            return
        if k == "SolveBlock":
            if self.solve_hook is not None:
                self.solve_hook(self, s)
            return  # BREAKPOINT's: handled by the Translator
        raise self.mod.refuse(k, self.line)

    def fresh(self, stem):
        self.tmp += 1
        return "arb_%s%d" % (stem, self.tmp)

    def solve_linear(self, a, b, unknowns):
        """Emits the solution of the linear system sum_j a[i, j]·x_j = b[i] into the names
        UNKNOWNS: Gaussian elimination unrolled here, in T (no data-dependent branch: every
        SIMD lane runs it), on the structurally nonzero entries of a (C++ texts). No pivoting:
        the systems are the implicit Euler steps of decay and kinetic equations, (I - dt·J)
        with J's columns summing to <= 0 (column diagonally dominant, where elimination in order
        is stable), and the equilibrium systems NEURON's LINEAR blocks state."""
        n = len(unknowns)
        names = {}
        for (i, j), x in sorted(a.items()):
            names[i, j] = self.fresh("a")
            self.emit("T %s = %s;" % (names[i, j], as_t(x)))
        rhs = []
        for i in range(n):
            rhs.append(self.fresh("b"))
            self.emit("T %s = %s;" % (rhs[i], as_t(b[i])))
        for k in range(n):
            if (k, k) not in names:
                raise self.refuse(self.block_name.split()[0],
                                  "the linear system of %s has no pivot for %s (reorder its equations)"
                                  % (self.block_name, self.mod.renamed.get(unknowns[k], unknowns[k])))
            for i in range(k + 1, n):
                if (i, k) not in names:
                    continue
                f = self.fresh("f")
                self.emit("const T %s = %s;" % (f, quotient(names[i, k], names[k, k])))
                for j in range(k + 1, n):
                    if (k, j) not in names:
                        continue
                    if (i, j) in names:
                        self.emit("%s = %s - %s * %s;" % (names[i, j], names[i, j], f, names[k, j]))
                    else:
                        names[i, j] = self.fresh("a")
                        self.emit("T %s = -(%s * %s);" % (names[i, j], f, names[k, j]))
                self.emit("%s = %s - %s * %s;" % (rhs[i], rhs[i], f, rhs[k]))
        for k in reversed(range(n)):
            terms = ["%s * %s" % (names[k, j], unknowns[j]) for j in range(k + 1, n) if (k, j) in names]
            num = rhs[k] if not terms else "%s - (%s)" % (rhs[k], " + ".join(terms))
            self.emit("%s = %s;" % (unknowns[k], quotient(num, names[k, k])))

    def sympy_text(self, e):
        """C++ text of sympy expression e over this function's names."""
        import sympy
        if e.is_Symbol:
            return self.name(str(e))
        if e.is_Integer:
            return "%d.0" % int(e)
        if e.is_Rational:
            return "(%d.0 / %d.0)" % (e.p, e.q)
        if e.is_Number:
            return cpp_double(float(e))
        if e.is_Add:
            return "(%s)" % " + ".join(self.sympy_text(x) for x in e.args)
        if e.is_Mul:
            return "(%s)" % " * ".join(self.sympy_text(x) for x in e.args)
        if e.is_Pow:
            base, ex = e.args
            if ex == -1:
                return quotient("1.0", self.sympy_text(base))
            if ex == 2:
                return "math::square(%s)" % as_t(self.sympy_text(base))
            return "math::pow(%s, %s)" % (as_t(self.sympy_text(base)), as_t(self.sympy_text(ex)))
        if isinstance(e, sympy.exp):
            return "math::exp(%s)" % as_t(self.sympy_text(e.args[0]))
        if isinstance(e, sympy.log):
            return "math::log(%s)" % as_t(self.sympy_text(e.args[0]))
        if isinstance(e, sympy.Abs):
            return "math::fabs(%s)" % as_t(self.sympy_text(e.args[0]))
        raise self.refuse(self.block_name.split()[0], "%s in a linear system is not supported" % e.func)

    @staticmethod
    def sympy_of(t):
        """NMODL expression text as a sympy expression (every name a symbol)."""
        import sympy
        from sympy.parsing.sympy_parser import parse_expr, standard_transformations, convert_xor
        names = {n: sympy.Symbol(n) for n in re.findall(r"[A-Za-z_]\w*", t)}
        for f, sf in (("exp", sympy.exp), ("log", sympy.log), ("pow", sympy.Pow), ("fabs", sympy.Abs)):
            names[f] = sf
        return parse_expr(t, local_dict=names, transformations=standard_transformations + (convert_xor,),
                          evaluate=True)

    def linear_rows(self, texts, unknowns, construct):
        """Each NMODL expression text as sum_j coefficient_j·unknown_j + constant (sympy):
        (coefficients {j: sympy}, constant); a text not linear in the unknowns is refused."""
        import sympy
        rows = []
        for t in texts:
            e = self.sympy_of(t)
            syms = [sympy.Symbol(u) for u in unknowns]
            coef = {}
            for j, x in enumerate(syms):
                c = sympy.expand(sympy.diff(e, x))
                if c.free_symbols & set(syms):
                    raise self.refuse(construct, "%s is not linear in the states (%s)"
                                      % (self.block_name, self.mod.renamed.get(unknowns[j], unknowns[j])))
                if c != 0:
                    coef[j] = c
            rows.append((coef, sympy.expand(e.subs({x: 0 for x in syms}))))
        return rows

    def if_statement(self, s):
        outer = self.mask
        before = set(self.defined)
        arms = [(s.condition, s.statement_block)] + [(e.condition, e.statement_block) for e in s.elseifs]
        taken = []  # masks of the conditions already tested
        defined_all = None
        for cond, body in arms:
            c, _ = self.expr(cond)
            self.masks += 1
            m = "arb_m%d" % self.masks
            parts = ([outer] if outer else []) + ["!%s" % t for t in taken] + ["(%s)" % c]
            cm = "arb_c%d" % self.masks
            self.emit("const auto %s = %s;" % (cm, c[1:-1] if paren(c) == c and c.startswith("(") else c))
            parts[-1] = cm
            self.emit("const auto %s = %s;" % (m, " && ".join(parts)))
            taken.append(cm)
            self.mask = m
            self.defined = set(before)
            self.statements_scoped(body)
            defined_all = self.defined if defined_all is None else defined_all & self.defined
        if s.elses is not None:
            self.masks += 1
            m = "arb_m%d" % self.masks
            parts = ([outer] if outer else []) + ["!%s" % t for t in taken]
            self.emit("const auto %s = %s;" % (m, " && ".join(parts)))
            self.mask = m
            self.defined = set(before)
            self.statements_scoped(s.elses.statement_block)
            defined_all &= self.defined
        else:
            defined_all = before
        self.mask = outer
        self.defined = defined_all | before

    def statements_scoped(self, body):
        self.emit("{")
        self.depth += 1
        self.locals.append(set())
        # An ASSIGNED value set under a mask counts as set when every arm sets it.
        for st in body.statements:
            k = kind_of(st)
            if k == "ExpressionStatement" and kind_of(st.expression) == "BinaryExpression" \
                    and st.expression.op.eval() == "=":
                n = st.expression.lhs.get_node_name()
                rhs, d = self.expr(st.expression.rhs)
                self.assign(n, rhs, d)
                if n in self.assigned:
                    self.defined.add(n)
            else:
                self.statement(st)
        self.locals.pop()
        self.depth -= 1
        self.emit("}")


# ---------------------------------------------------------------------------------------------

def cpp_string(s):
    return '"%s"' % s.replace("\\", "\\\\").replace('"', '\\"')


def cpp_double(x):
    if x == float("inf"):
        return "std::numeric_limits<double>::infinity()"
    r = repr(float(x))
    return r if ("." in r or "e" in r or "n" in r) else r + ".0"


@contextlib.contextmanager
def quiet_output():
    """Standard output and error to /dev/null (the NMODL library logs from C++)."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = [os.dup(1), os.dup(2)]
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.dup2(null, 2)
    try:
        yield
    finally:
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for fd in saved + [null]:
            os.close(fd)


class Translator:
    def __init__(self, path, namespace):
        self.path, self.namespace = path, namespace
        with open(path, encoding="utf-8", errors="replace") as f:
            self.text = f.read()
        self.loc = Locator(self.text)

    def translate(self):
        from nmodl import dsl, symtab
        from nmodl.dsl import visitor
        try:
            with quiet_output():
                program = dsl.NmodlDriver().parse_string(self.text)
        except RuntimeError as e:
            m = re.search(r"Location : (\d+)", str(e))
            first = str(e).strip().split("\n")[0]
            raise Refused(int(m.group(1)) if m else 1, "syntax", first)
        renamed = self.rename_sympy_names(program)
        mod = Module(program, self.loc)
        mod.renamed = renamed
        self.mod = mod
        self.check_statements(program)
        bp = mod.blocks["BreakpointBlock"]
        solves = [s.expression for s in bp.statement_block.statements
                  if kind_of(s) == "ExpressionStatement" and kind_of(s.expression) == "SolveBlock"]
        self.solved = None
        self.method = None
        for s in solves:
            line = self.loc.find(r"\bSOLVE\b", self.loc.find(r"\bBREAKPOINT\b"))
            name = s.block_name.get_node_name()
            method = s.method.get_node_name() if s.method else None
            if method not in ("cnexp", "derivimplicit", "sparse"):
                raise Refused(line, "METHOD %s" % method if method else "SOLVE",
                              "the methods supported are cnexp, derivimplicit (DERIVATIVE) and sparse (KINETIC)"
                              if method else "SOLVE without METHOD is not supported")
            if method == "sparse" and name not in mod.kinetics:
                raise Refused(line, "SOLVE %s" % name, "METHOD sparse needs a KINETIC block %s" % name)
            if method != "sparse" and name not in mod.derivatives:
                raise Refused(line, "SOLVE %s" % name, "METHOD %s needs a DERIVATIVE block %s" % (method, name))
            if self.solved is not None:
                raise Refused(line, "SOLVE", "one SOLVE per BREAKPOINT is supported")
            self.solved, self.method = name, method
        with quiet_output():  # the inliner reports each renamed variable
            symtab.SymtabVisitor().visit_program(program)
            visitor.InlineVisitor().visit_program(program)
            symtab.SymtabVisitor().visit_program(program)
            try:
                if self.method == "cnexp":
                    visitor.SympySolverVisitor().visit_program(program)
            except Exception as e:  # sympy's own failure
                raise Refused(self.loc.find(r"\bDERIVATIVE\b"), "DERIVATIVE", "the cnexp solver failed: %s" % e)
        # The solved, inlined blocks (the visitors replace nodes: look them up again).
        blocks = {}
        for b in program.blocks:
            k = kind_of(b)
            if k == "DerivativeBlock":
                blocks[("DERIVATIVE", b.name.get_node_name())] = b
            elif k == "KineticBlock":
                blocks[("KINETIC", b.name.get_node_name())] = b
            elif k == "LinearBlock":
                blocks[("LINEAR", b.name.get_node_name())] = b
            elif k in ("InitialBlock", "BreakpointBlock", "NetReceiveBlock"):
                blocks[k] = b
        return self.header(mod, blocks)

    def rename_sympy_names(self, program):
        """Renames the names sympy reserves (gamma, beta, O, ...: sympy would read them as its
        functions and constants) to name_ throughout; returns {new: old}."""
        import keyword
        import sympy
        from nmodl import ast
        from nmodl.dsl import visitor
        reserved = set(dir(sympy)) | set(keyword.kwlist) | {"lambda"}
        nodes = visitor.AstLookupVisitor().lookup(program, ast.AstNodeType.NAME)
        nodes += visitor.AstLookupVisitor().lookup(program, ast.AstNodeType.PRIME_NAME)
        taken = {n.get_node_name() for n in nodes}
        renamed, new_of = {}, {}
        for node in nodes:
            n = node.get_node_name()
            if n not in reserved or n in BUILTIN_FUNCTIONS or n in BUILTIN_VARIABLES:
                continue
            if n not in new_of:
                new = n + "_"
                while new in taken:
                    new += "_"
                taken.add(new)
                new_of[n] = new
                renamed[new] = n
            node.value.value = new_of[n]
        return renamed

    def check_statements(self, program):
        """Every statement inside the blocks is of a supported kind (before inlining)."""
        allowed = {"ExpressionStatement", "LocalListStatement", "IfStatement", "ElseIfStatement",
                   "ElseStatement", "StatementBlock", "UnitState", "SolveBlock", "LineComment",
                   "BlockComment"}
        kw_of_block = {"InitialBlock": "INITIAL", "BreakpointBlock": "BREAKPOINT", "DerivativeBlock": "DERIVATIVE",
                       "ProcedureBlock": "PROCEDURE", "FunctionBlock": "FUNCTION", "NetReceiveBlock": "NET_RECEIVE",
                       "KineticBlock": "KINETIC", "LinearBlock": "LINEAR"}

        def walk(block, start, extra=()):
            for s in block.statements:
                k = kind_of(s)
                if k not in allowed and k not in extra:
                    raise self.mod.refuse(k, start)
                if k == "IfStatement":
                    walk(s.statement_block, start)
                    for e in s.elseifs:
                        walk(e.statement_block, start)
                    if s.elses is not None:
                        walk(s.elses.statement_block, start)
                elif k == "StatementBlock":
                    walk(s, start)

        for b in program.blocks:
            k = kind_of(b)
            if k in kw_of_block:
                name = b.name.get_node_name() if hasattr(b, "name") and b.name is not None else ""
                start = self.loc.find(r"\b%s\b\s*%s" % (kw_of_block[k], re.escape(self.mod.renamed.get(name, name))))
                walk(b.statement_block, start, ("ReactionStatement", "Conserve") if k == "KineticBlock" else ())

    # The header -----------------------------------------------------------------------------
    def header(self, mod, blocks):
        base = os.path.basename(self.path)
        out = ["#pragma once",
               "// Generated by tools/nmodl_to_arbolito.py from %s: do not edit." % base]
        if mod.title:
            out.append("// " + mod.title)
        has_ions = bool(mod.ions)
        out += ['#include <limits>', "", '#include "core/math.hpp"']
        if has_ions:
            out.append('#include "mechanisms/ion.hpp"')
        out += ['#include "mechanisms/mechanism.hpp"', "",
                "namespace %s {" % self.namespace, "", "struct %s : MechanismDefaults {" % mod.suffix]
        kind = "synapse" if mod.point_process else "density"
        original = lambda n: mod.renamed.get(n, n)
        out.append("    static constexpr const char* name = %s;" % cpp_string(mod.suffix))
        out.append("    static constexpr MechKind kind = MechKind::%s;" % kind)
        if mod.params:
            qs = []
            for n, unit, default, lo in mod.params:
                q = "Quantity{%s, %s, %s" % (cpp_string(original(n)), cpp_string(unit), cpp_double(default))
                qs.append(q + (", %s}" % cpp_double(lo) if lo is not None else "}"))
            out.append("    static constexpr std::array params{%s};" % ", ".join(qs))
            out.append("    enum Param { %s };" % ", ".join(p[0] for p in mod.params))
        else:
            out.append("    static constexpr std::array<Quantity, 0> params{};")
        if mod.states:
            out.append("    static constexpr std::array states{%s};" %
                       ", ".join("Quantity{%s, %s}" % (cpp_string(original(n)), cpp_string(u)) for n, u in mod.states))
            out.append("    enum State { %s };" % ", ".join(s[0] for s in mod.states))
        if has_ions:
            out.append("    // ion[4j + 0..3]: ion j's e (mV), Xi, Xo (mM) and current density (mA/cm2).")
            out.append("    static constexpr std::array ions{%s};" % ", ".join(
                "IonUse{%s, %d, %s}" % (cpp_string(ion), val, " | ".join(flags)) for ion, val, flags in mod.ions))
            out.append("    static constexpr std::array<int, %d> ion_state{%s};" % (
                len(mod.ions), ", ".join("-1" if x is None else "State::%s" % mod.states[x][0] for x in mod.ion_state)))
        # The one NONSPECIFIC_CURRENT of a mechanism that writes no ion current is its whole
        # current: probes may name it (e.g. "Ih.ihcn" for "Ih.i").
        writes_ion_current = any("ion_write_i" in flags for _, _, flags in mod.ions)
        if len(mod.currents) == 1 and not writes_ion_current:
            out.append("    static constexpr const char* nonspecific_current = %s;" %
                       cpp_string(mod.renamed.get(mod.currents[0], mod.currents[0])))
        for n, val in mod.constants:
            out.append("    static constexpr double %s = %s;" % (n, cpp_double(val)))
        uses_celsius = re.search(r"\bcelsius\b", "\n".join(self.loc.lines)) is not None
        globals_at = len(out)  # the Globals struct goes here once the functions are written
        params = [p[0] for p in mod.params]
        states = [s[0] for s in mod.states]
        consts = [c[0] for c in mod.constants]
        ion_values = set(mod.ion_read)
        celsius = {"celsius"} if uses_celsius else set()

        def bindings(em, entries):
            lines = []
            for n, src in entries:
                if n in em.used:
                    lines.append("        [[maybe_unused]] %s %s = %s;" % ("T", n, src))
            return lines

        def function(sig, em, entries, tail, template=True, scalar=False):
            body = bindings(em, entries)
            decl = ["        [[maybe_unused]] T %s = 0.0;" % n for n in mod.assigned + mod.currents
                    if re.search(r"\b%s\b" % n, "\n".join(em.out))]
            if em.diff:
                decl += ["        [[maybe_unused]] T d_%s = 0.0;" % n for n in mod.assigned + mod.currents
                         if n in em.has_d]
            res = [""]
            if template:
                res.append("    template <class T>")
            res.append("    " + sig + " {")
            if scalar:
                res.append("        using T = double;")
            res += body + decl + em.out + tail + ["    }"]
            return res

        glob_entry = [("celsius", "arb_globals.celsius")] if uses_celsius else []
        p_entries = [(n, "arb_p[Param::%s]" % n) for n in params]
        s_entries = [(n, "arb_s[State::%s]" % n) for n in states]
        ion_entries = [(n, "arb_ion[%d]" % k) for n, k in sorted(mod.ion_read.items(), key=lambda x: x[1])]
        ion_arg = lambda t: ", [[maybe_unused]] const %s* arb_ion" % t if has_ions else ""

        # INITIAL: states at rest at v. A written concentration starts from the ion's value.
        init_s_entries = [(n, "arb_ion[%d]" % (4 * mod.ion_conc[n][0] + (1 if mod.ion_conc[n][1] == "xi" else 2))
                           if n in mod.ion_conc else "arb_s[State::%s]" % n) for n in states]
        if "InitialBlock" in blocks or has_ions:
            em = Emitter(mod, "INITIAL", self.loc.find(r"\bINITIAL\b"),
                         set(params) | set(states) | {"v"} | celsius | set(consts) | ion_values, set(states))
            em.solve_hook = lambda e, sb: self.initial_solve(e, sb, blocks)
            if "InitialBlock" in blocks:
                for st in blocks["InitialBlock"].statement_block.statements:
                    em.statement(st)
            em.used |= {n for n in states if n in em.used or n in mod.ion_conc}
            tail = ["        arb_s[State::%s] = %s;" % (n, n) for n in states if n in em.used]
            out += function("ARB_HD static void init([[maybe_unused]] double v, [[maybe_unused]] const Globals& "
                            "arb_globals, [[maybe_unused]] const double* arb_p, [[maybe_unused]] double* arb_s%s)"
                            % ion_arg("double"), em, glob_entry + p_entries + init_s_entries + ion_entries,
                            tail, template=False, scalar=True)

        # BREAKPOINT: the current and its derivative by v.
        bp = blocks["BreakpointBlock"]
        em = Emitter(mod, "BREAKPOINT", self.loc.find(r"\bBREAKPOINT\b"),
                     set(params) | set(states) | {"v", "t"} | celsius | set(consts) | ion_values,
                     set(), differentiate=True)
        for st in bp.statement_block.statements:
            em.statement(st)
        if not mod.currents and not mod.ion_conc:
            raise Refused(self.loc.find(r"\bNEURON\b"), "NEURON", "no NONSPECIFIC_CURRENT, no ion current or "
                                                                 "concentration written: the mechanism does nothing")
        for c in mod.currents:
            em.name(c)  # set before it is summed
        total = " + ".join(mod.currents) or "T(0.0)"
        dtotal = " + ".join(("d_" + c) if c in em.has_d else "T(0.0)" for c in mod.currents) or "T(0.0)"
        tail = ["        arb_i = %s;" % total, "        arb_g = %s;" % dtotal]
        for j in range(len(mod.ions)):  # every slot: 0 for an ion whose current the mechanism does not write
            carried = [c for c in mod.currents if mod.ion_current.get(c) == j]
            tail.append("        arb_ion_i[%d] = %s;" % (j, " + ".join(carried) if carried else "T(0.0)"))
        entries = glob_entry + p_entries + s_entries + ion_entries + [("t", "arb_t")]
        out += function("ARB_HD static void current([[maybe_unused]] T v, [[maybe_unused]] double arb_t, "
                        "[[maybe_unused]] const Globals& arb_globals, [[maybe_unused]] const T* arb_p, "
                        "[[maybe_unused]] const T* arb_s, const T* /*c*/%s, T& arb_i, T& arb_g%s)"
                        % (ion_arg("T"), ", [[maybe_unused]] T* arb_ion_i" if has_ions else ""), em, entries, tail)

        # SOLVE ... METHOD cnexp (the solved DERIVATIVE block), derivimplicit or sparse (KINETIC).
        if self.solved is not None or has_ions:
            values = set(params) | set(states) | {"v", "dt"} | celsius | set(consts) | ion_values
            if self.solved is None:
                em = Emitter(mod, "advance", 1, values, set(states))
            elif self.method == "sparse":
                em = Emitter(mod, "KINETIC %s" % self.solved,
                             self.loc.find(r"\bKINETIC\b\s*%s" % original(self.solved)), values, set(states))
                self.kinetic(em, blocks[("KINETIC", self.solved)], states)
            else:
                em = Emitter(mod, "DERIVATIVE %s" % self.solved,
                             self.loc.find(r"\bDERIVATIVE\b\s*%s" % original(self.solved)), values, set(states))
                db = blocks[("DERIVATIVE", self.solved)]
                if self.method == "derivimplicit":
                    self.derivimplicit(em, db, states)
                else:
                    for st in db.statement_block.statements:
                        em.statement(st)
            tail = ["        arb_s[State::%s] = %s;" % (n, n) for n in states if n in em.used]
            entries = glob_entry + p_entries + s_entries + ion_entries + [("dt", "arb_dt")]
            out += function("ARB_HD static void advance([[maybe_unused]] T v, [[maybe_unused]] double arb_dt, "
                            "[[maybe_unused]] const Globals& arb_globals, [[maybe_unused]] const T* arb_p, "
                            "[[maybe_unused]] T* arb_s, const T* /*c*/%s)" % ion_arg("T"), em, entries, tail)

        # NET_RECEIVE(weight): an event of weight w.
        if "NetReceiveBlock" in blocks:
            nb = blocks["NetReceiveBlock"]
            wname = nb.parameters[0].get_node_name()
            em = Emitter(mod, "NET_RECEIVE", self.loc.find(r"\bNET_RECEIVE\b"),
                         set(params) | set(states) | {wname} | set(consts), set(states))
            for st in nb.statement_block.statements:
                em.statement(st)
            tail = ["        arb_s[State::%s] = %s;" % (n, n) for n in states if n in em.used]
            out += function("ARB_HD static void on_event([[maybe_unused]] double arb_w, [[maybe_unused]] const double* "
                            "arb_p, [[maybe_unused]] double* arb_s, const double* /*c*/)",
                            em, p_entries + s_entries + [(wname, "arb_w")], tail, template=False, scalar=True)
        if uses_celsius:
            hoisted = self.hoist_run_constants(out, consts)
            # celsius itself stays in Globals only where a function still reads it (the GPU's
            # resident kernel holds every mechanism's Globals in one fixed-size argument).
            binding = "        [[maybe_unused]] T celsius = arb_globals.celsius;"
            keep = any(re.search(r"\bcelsius\b", line) for line in out if line != binding)
            if not keep:
                out[:] = [line for line in out if line != binding]
            fields = (["celsius"] if keep else []) + [n for n, _ in hoisted]
            glob = ["", "    // NEURON's celsius, per run, and the values that depend on it alone (once per run:",
                    "    // the bits of computing them per instance and step)."]
            glob.append("    struct Globals { %s};" % "".join("double %s; " % n for n in fields))
            if hoisted:
                glob.append("    static Globals globals([[maybe_unused]] double celsius) {")
                glob.append("        using T = double;")
                glob.append("        Globals g{};")
                if keep:
                    glob.append("        g.celsius = celsius;")
                glob += ["        g.%s = %s;" % (n, e) for n, e in hoisted]
                glob += ["        return g;", "    }"]
            else:
                glob.append("    static Globals globals(double celsius) { return {celsius}; }")
            out[globals_at:globals_at] = glob
        out += ["};", "", "}  // namespace %s" % self.namespace, ""]
        return "\n".join(out)

    # A statement "x = e;" of the per-step functions whose e calls a math function and reads no
    # name but celsius and CONSTANTs (a Q10 factor) takes e from Globals instead: one pow per
    # run, not per instance and step. Identical expressions share one value.
    RUN_CONSTANT = re.compile(r"^(\s*)(\w+) = (.*math::.*);$")

    def hoist_run_constants(self, out, consts):
        allowed = {"celsius", "T", "math", "pow", "exp", "log", "fabs", "quotient"} | set(consts)
        hoisted = {}
        in_step_function = False
        for k, line in enumerate(out):
            if line.startswith("    ARB_HD static void "):
                in_step_function = line.startswith(("    ARB_HD static void init(", "    ARB_HD static void current(",
                                                    "    ARB_HD static void advance("))
                continue
            m = self.RUN_CONSTANT.match(line)
            if not in_step_function or m is None or "math::select" in m.group(3):
                continue
            names = set(re.findall(r"(?<![\w.])[A-Za-z_]\w*", m.group(3)))
            if not names <= allowed:
                continue
            e = m.group(3)
            if e not in hoisted:
                hoisted[e] = "arb_run_%d" % len(hoisted)
            out[k] = "%s%s = T(arb_globals.%s);" % (m.group(1), m.group(2), hoisted[e])
        return [(n, e) for e, n in hoisted.items()]

    # Implicit schemes: one linear solve per step (Emitter.solve_linear) ------------------------
    # NEURON's STEADYSTATE sparse (scopmath's _ss_sparse_thread) for a scheme linear in its
    # states: one backward Euler step of 1e9 ms from the states' values.
    STEADYSTATE_DT = "1e9"

    def kinetic(self, em, block, states, dt="arb_dt"):
        """KINETIC with METHOD sparse, as NEURON's sparse solves it: one backward Euler step of
        the scheme, (I - dt·J)·s_new = s_old, J the reactions' rates at the new v (linear in the
        states: Newton's first step is exact); CONSERVE's equation replaces that of the last
        state it names. DT: the step (STEADYSTATE_DT for NEURON's STEADYSTATE sparse)."""
        from nmodl import dsl
        idx = {n: i for i, n in enumerate(states)}
        out_rates = {i: [] for i in range(len(states))}
        in_rates = {}
        conserve = None

        def species(r):
            if kind_of(r) == "ReactVarName" and r.value is None and r.name.get_node_name() in idx:
                return idx[r.name.get_node_name()]
            raise em.refuse("~", "a reaction of one STATE with one STATE (stoichiometry 1) is supported")

        for st in block.statement_block.statements:
            e = st.expression if kind_of(st) == "ExpressionStatement" else st
            k = kind_of(e)
            if k == "ReactionStatement":
                if e.op.eval() != "<->":
                    raise em.refuse("~", "only reactions A <-> B (kf, kb) are supported")
                a, b = species(e.reaction1), species(e.reaction2)
                for (src, dst), rate in (((a, b), e.expression1), ((b, a), e.expression2)):
                    kname = em.fresh("k")
                    em.emit("const T %s = %s;" % (kname, as_t(em.expr(rate)[0])))
                    out_rates[src].append(kname)
                    in_rates.setdefault((dst, src), []).append(kname)
            elif k == "Conserve":
                if conserve is not None:
                    raise em.refuse("CONSERVE", "one CONSERVE per KINETIC block is supported")
                terms = []

                def flatten(x):
                    if kind_of(x) == "BinaryExpression" and x.op.eval() == "+":
                        flatten(x.lhs)
                        flatten(x.rhs)
                    elif kind_of(x) in ("WrappedExpression", "ParenExpression"):
                        flatten(x.expression)
                    else:
                        n = x.get_node_name() if kind_of(x) in ("Name", "VarName", "ReactVarName") else None
                        if n not in idx or (kind_of(x) == "ReactVarName" and x.value is not None):
                            raise em.refuse("CONSERVE", "CONSERVE of a sum of STATEs is supported")
                        terms.append(idx[n])
                flatten(e.react)
                conserve = (terms, em.expr(e.expr)[0])
            else:
                em.statement(st)
        n = len(states)
        a = {}
        for i in range(n):
            a[i, i] = "1.0 + %s * (%s)" % (dt, " + ".join(out_rates[i])) if out_rates[i] else "1.0"
        for (i, j), ks in in_rates.items():
            if i != j:
                a[i, j] = "-(%s * (%s))" % (dt, " + ".join(ks))
        b = [em.name(x) for x in states]
        if conserve is not None:
            terms, value = conserve
            r = max(terms)
            for j in range(n):
                a.pop((r, j), None)
            for j in terms:
                a[r, j] = "1.0"
            b[r] = value
        em.used |= set(states)
        em.solve_linear(a, b, states)

    # NEURON's derivimplicit iterates Newton's method until its residual is below 1e-8 /ms and
    # the relative change below 1e-6 (scopmath's newton); a fixed number of iterations keeps
    # every SIMD lane and GPU thread on the same operations. From the step's start, with
    # dt·|J| of order 1, each iteration squares the error: 6 reach round-off.
    NEWTON_ITERATIONS = 6

    def derivimplicit(self, em, block, states):
        """METHOD derivimplicit: NEURON's implicit Euler step, s_new = s + dt·f(s_new), solved
        by Newton's method. For equations linear in the states, whose other statements do not
        read the states, Newton's first step is the exact solution: (I - dt·A)·s_new = s + dt·b
        for f(s) = A·s + b. Otherwise NEWTON_ITERATIONS iterations, the Jacobian by sympy."""
        import sympy
        from nmodl import dsl
        eqs, pre = [], []
        for st in block.statement_block.statements:
            e = st.expression if kind_of(st) == "ExpressionStatement" else st
            if kind_of(e) == "DiffEqExpression":
                lhs = e.expression.lhs
                n = lhs.name.get_node_name() if hasattr(lhs, "name") else lhs.get_node_name()
                if n not in states or any(x[0] == n for x in eqs):
                    raise em.refuse("'", "%s' must be a STATE's one equation" % n)
                eqs.append((n, dsl.to_nmodl(e.expression.rhs)))
            elif eqs:
                raise em.refuse("'", "statements after the differential equations are not supported with "
                                     "derivimplicit")
            else:
                pre.append(st)
        unknowns = [n for n, _ in eqs]
        # The statements before the equations: do they read the states?
        saved = (list(em.out), set(em.used), set(em.defined), em.masks, em.tmp)
        em.used = set()
        for st in pre:
            em.statement(st)
        reads_states = bool(em.used & set(unknowns))
        em.used |= saved[1]
        syms = [sympy.Symbol(u) for u in unknowns]
        fs = [Emitter.sympy_of(t) for _, t in eqs]
        jac = [[sympy.diff(f, x) for x in syms] for f in fs]
        linear = not reads_states and all(not (c.free_symbols & set(syms)) for row in jac for c in row)
        if linear:
            rows = em.linear_rows([t for _, t in eqs], unknowns, "'")
            a, b = {}, []
            for i, (coef, const) in enumerate(rows):
                for j in range(len(unknowns)):
                    c = coef.get(j)
                    if i == j:
                        a[i, j] = "1.0 - arb_dt * %s" % em.sympy_text(c) if c is not None else "1.0"
                    elif c is not None:
                        a[i, j] = "-(arb_dt * %s)" % em.sympy_text(c)
                x = em.name(unknowns[i])
                b.append("%s + arb_dt * %s" % (x, em.sympy_text(const)) if const != 0 else x)
            em.used |= set(unknowns)
            em.solve_linear(a, b, unknowns)
            return
        # Newton: the statements before the equations again in every iteration.
        em.out, em.used, em.defined, em.masks, em.tmp = saved[0], saved[1], saved[2], saved[3], saved[4]
        old = {}
        for x in unknowns:
            old[x] = em.fresh("s0_")
            em.emit("const T %s = %s;" % (old[x], em.name(x)))
        em.emit("for (int arb_it = 0; arb_it < %d; ++arb_it) {" % self.NEWTON_ITERATIONS)
        em.depth += 1
        em.locals.append(set())
        for st in pre:
            em.statement(st)
        a, b, deltas = {}, [], []
        for i, (x, f) in enumerate(zip(unknowns, fs)):
            b.append("%s - %s - arb_dt * %s" % (em.name(x), old[x], em.sympy_text(f)))
            for j in range(len(unknowns)):
                c = jac[i][j]
                if i == j:
                    a[i, j] = "1.0 - arb_dt * %s" % em.sympy_text(c) if c != 0 else "1.0"
                elif c != 0:
                    a[i, j] = "-(arb_dt * %s)" % em.sympy_text(c)
            deltas.append(em.fresh("d"))
            em.emit("T %s;" % deltas[-1])
        em.solve_linear(a, b, deltas)
        for x, d in zip(unknowns, deltas):
            em.emit("%s = %s - %s;" % (x, x, d))
        em.locals.pop()
        em.depth -= 1
        em.emit("}")
        em.used |= set(unknowns)

    def initial_solve(self, em, sb, blocks):
        """SOLVE of a LINEAR block in INITIAL: its equations' linear system for the STATEs in them."""
        from nmodl import dsl
        name = sb.block_name.get_node_name()
        line_kw = r"\bSOLVE\s+%s\b" % re.escape(self.mod.renamed.get(name, name))
        if ("KINETIC", name) in blocks:
            method = sb.steadystate.get_node_name() if sb.steadystate is not None else None
            if method != "sparse":
                raise Refused(self.loc.find(line_kw), "SOLVE %s" % self.mod.renamed.get(name, name),
                              "in INITIAL, a KINETIC block is solved with STEADYSTATE sparse")
            self.kinetic(em, blocks[("KINETIC", name)], [s[0] for s in self.mod.states], self.STEADYSTATE_DT)
            return
        if ("LINEAR", name) not in blocks:
            raise Refused(self.loc.find(line_kw), "SOLVE %s" % self.mod.renamed.get(name, name),
                          "in INITIAL, SOLVE of a LINEAR block or of a KINETIC block (STEADYSTATE sparse) is "
                          "supported")
        lb = blocks[("LINEAR", name)]
        texts = []
        for st in lb.statement_block.statements:
            e = st.expression if kind_of(st) == "ExpressionStatement" else st
            if kind_of(e) == "LinEquation":
                texts.append("(%s) - (%s)" % (dsl.to_nmodl(e.left_linxpression), dsl.to_nmodl(e.linxpression)))
            else:
                em.statement(st)
        states = [s[0] for s in self.mod.states]
        unknowns = [n for n in states if any(re.search(r"\b%s\b" % n, t) for t in texts)]
        if len(unknowns) != len(texts):
            raise Refused(self.loc.find(r"\bLINEAR\s+%s\b" % self.mod.renamed.get(name, name)), "LINEAR",
                          "%d equations for %d STATEs" % (len(texts), len(unknowns)))
        rows = em.linear_rows(texts, unknowns, "~")
        a, b = {}, []
        for i, (coef, const) in enumerate(rows):
            for j, c in coef.items():
                a[i, j] = em.sympy_text(c)
            b.append(em.sympy_text(-const))
        em.used |= set(unknowns)
        em.solve_linear(a, b, unknowns)


def translate_one(path, output, namespace, name_from_file):
    """Translates PATH into OUTPUT; False (and the message on stderr) where it is refused."""
    try:
        tr = Translator(path, namespace)
        text = tr.translate()
        stem = os.path.splitext(os.path.basename(path))[0]
        if name_from_file and tr.mod.suffix != stem:
            raise Refused(tr.loc.find(r"\b(SUFFIX|POINT_PROCESS)\b"), tr.mod.suffix,
                          "the mechanism's name must be the file's (%s.mod)" % tr.mod.suffix)
    except Refused as r:
        print("%s:%d: %s: %s" % (path, r.line, r.construct, r.reason), file=sys.stderr)
        return False
    except OSError as e:
        print("%s: %s" % (path, e.strerror), file=sys.stderr)
        return False
    # A temporary file of its own beside OUTPUT, renamed into place: no reader ever sees
    # half a header, and two writers of one OUTPUT never share a temporary.
    fd, tmp = tempfile.mkstemp(prefix=os.path.basename(output) + ".", suffix=".tmp",
                               dir=os.path.dirname(os.path.abspath(output)))
    mask = os.umask(0)
    os.umask(mask)
    try:
        os.fchmod(fd, 0o666 & ~mask)  # as open() would make it, not mkstemp's 0600
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, output)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("inputs", nargs="+", metavar="input", help="the .mod file(s)")
    out = ap.add_mutually_exclusive_group(required=True)
    out.add_argument("-o", "--output", help="the header to write (one input)")
    out.add_argument("--output-dir", help="write each input X.mod as DIR/X.hpp; the mechanism's name (SUFFIX or "
                                          "POINT_PROCESS) must be X; nothing is written unless every input translates")
    ap.add_argument("--namespace", default="arbolito::nmodl", help="C++ namespace of the mechanism")
    a = ap.parse_args()
    if a.output:
        if len(a.inputs) != 1:
            ap.error("-o takes one input; --output-dir several")
        return 0 if translate_one(a.inputs[0], a.output, a.namespace, False) else 2
    os.makedirs(a.output_dir, exist_ok=True)
    staged = []
    ok = True
    for path in a.inputs:
        stem = os.path.splitext(os.path.basename(path))[0]
        target = os.path.join(a.output_dir, stem + ".hpp")
        if translate_one(path, target + ".new", a.namespace, True):
            staged.append(target)
        else:
            ok = False
    for target in staged:
        if ok:
            os.replace(target + ".new", target)
        else:
            os.remove(target + ".new")
    return 0 if ok else 2


if __name__ == "__main__":
    sys.exit(main())
