#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes a cmocka test that calls every public function of include/ember.h with NULL, zero,
huge and negative arguments: tests/CMakeLists.txt runs it at build time, so a function added
to the header is tested without anyone writing a line.

How it works. The header is read with comments and preprocessor lines removed; every
`EMBER_API` declaration (one or several lines, with EMBER_NODISCARD / EMBER_DEPRECATED(...))
is parsed into a return type, a name and parameters. Opaque `typedef struct X X;` are the
object types, `typedef enum {...} X;` the enums (for an out-of-range value), `typedef R
(*X)(...)` function pointers. Each parameter is one of:
  - an object (`ember_model *`, `const ember_session *`, ...): NULL, or the fixture's object
    (all of a function's objects at once, and each alone when it takes several);
  - an out pointer (`ember_x **` or `char **` not followed by a count): NULL, or a local
    holding a sentinel that must read NULL after a failure and is freed after a success;
  - any other pointer (strings, arrays, allocator, callbacks): NULL;
  - a number, bool or enum: 0, huge (SIZE_MAX, INT_MAX, INT64_MAX, true, 999) or negative
    (INT_MIN, INT64_MIN, enum -1; unsigned ones stay huge); for a function with an index
    (`i`, `d`), also index 0 with the other numbers huge (a valid index, an absurd `cap`).
Every function is called with everything NULL/0; a function with object parameters again with
the objects bound and numbers 0, huge and negative (destroy/free functions: NULL only, so the
fixtures survive); a status-returning function with out pointers once more with each of those
bound to a sentinel. The expectations:
  - nothing crashes (ASan and UBSan builds check reads, writes and leaks too);
  - a status-returning function called with everything NULL returns INVALID_ARG whose message
    names the function (e.g. "session_memory_info: NULL session"), except those listed in
    NULL_ACCEPTED below;
  - any other status is NULL or carries a valid ember_code and a non-empty message, and it is
    INVALID_ARG whenever a required out pointer is NULL;
  - with an out pointer bound, a failure leaves it NULL and a success fills it;
  - an accessor returning a value returns its documented value (RETURN_ON_NULL) when its
    objects are NULL, and again when an index argument (`i`, `d`) is huge or negative.
Each test gets fresh fixtures (cmocka setup/teardown), so setters that change an options
object, release_plans or a profile with `clear` cannot affect another function's test.

A declaration the parser does not understand, an object type with no fixture, an out type with
no destroy function or a status function without pointers that is not listed fails the
generator (exit status 1), so the build breaks rather than letting a function escape.

Usage: tools/gen_api_null_test.py HEADER OUT.c
"""
import re
import sys

# Status-returning functions that legitimately return success when every pointer is NULL and
# every number 0 and that have no out pointer to make that INVALID_ARG (see the module doc).
# Each entry needs its reason. None today: every status-returning function of ember.h either
# has an out pointer or needs an object.
NULL_ACCEPTED = {
}

# How the fixture makes each object type: the C expression of the fixture's field. A new
# opaque type in the header needs an entry here (and a line in fixture_setup below).
FIXTURES = {
    'ember_model': 'fx->model',
    'ember_session': 'fx->session',
    'ember_tensor': 'fx->tensor',
    'ember_model_options': 'fx->model_options',
    'ember_session_options': 'fx->session_options',
    'ember_profile': 'fx->profile',
    'ember_status': 'fx->status',
    'ember_quantize_options': 'fx->quantize_options',
    'ember_quantizer': 'fx->quantizer',
    'ember_trainer_options': 'fx->trainer_options',
    'ember_trainer': 'fx->trainer',
}

# Documented value of an accessor when its object is NULL or its index out of range, where it
# differs from the default of its return type (pointer NULL, size_t / int64_t 0, int -1, bool
# false, enum 0). Strings are compared with strcmp.
RETURN_ON_NULL = {
    'ember_status_message': ('str', 'ok'),  # "never NULL"
    'ember_profile_event_node': ('str', ''),  # "never NULL; "" when unnamed"
    'ember_profile_event_op': ('str', ''),
    'ember_profile_event_kernel': ('str', ''),
    'ember_profile_event_thread': ('val', '0'),  # a thread id, 0 as out of range always was
    'ember_session_thread_count': ('val', '0'),  # a count
}

# Parameter names that are indexes: a huge or negative one is out of range.
INDEX_NAMES = {'i', 'd'}

# Number types and their values: (zero, huge, negative).
NUMBERS = {
    'size_t': ('0', 'SIZE_MAX', 'SIZE_MAX'),
    'int': ('0', 'INT_MAX', 'INT_MIN'),
    'unsigned': ('0u', 'UINT_MAX', 'UINT_MAX'),
    'unsigned int': ('0u', 'UINT_MAX', 'UINT_MAX'),
    'int64_t': ('0', 'INT64_MAX', 'INT64_MIN'),
    'uint64_t': ('0', 'UINT64_MAX', 'UINT64_MAX'),
    'int32_t': ('0', 'INT32_MAX', 'INT32_MIN'),
    'uint32_t': ('0', 'UINT32_MAX', 'UINT32_MAX'),
    'bool': ('false', 'true', 'true'),
    'double': ('0.0', '1e300', '-1e300'),
    'float': ('0.0f', '1e30f', '-1e30f'),
}


class ParseError(Exception):
    pass


def strip_comments(text):
    """Removes /* */ and // comments, keeping string and character literals and newlines."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith('/*', i):
            j = text.find('*/', i + 2)
            if j < 0:
                raise ParseError('unterminated comment')
            out.append('\n' * text.count('\n', i, j) + ' ')
            i = j + 2
        elif text.startswith('//', i):
            j = text.find('\n', i)
            i = n if j < 0 else j
        elif c in '"\'':
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == '\\' else 1
            out.append(text[i:j + 1])
            i = j + 1
        else:
            out.append(c)
            i += 1
    return ''.join(out)


def strip_preprocessor(text):
    lines, out, cont = text.split('\n'), [], False
    for line in lines:
        if cont or line.lstrip().startswith('#'):
            cont = line.rstrip().endswith('\\')
            out.append('')
        else:
            out.append(line)
    return '\n'.join(out)


def decl_end(text, pos):
    """Index of the ';' ending the declaration at pos, outside parentheses and strings; -1."""
    depth, i = 0, pos
    while i < len(text):
        c = text[i]
        if c == '"':
            i += 1
            while i < len(text) and text[i] != '"':
                i += 2 if text[i] == '\\' else 1
        elif c == '(':
            depth += 1
        elif c == ')':
            depth -= 1
        elif c == ';' and depth == 0:
            return i
        i += 1
    return -1


def line_of(text, pos):
    return text.count('\n', 0, pos) + 1


class Type:
    """A C type as base name, const-ness of the base and one const flag per pointer level."""

    def __init__(self, text):
        self.text = ' '.join(text.split())
        toks = re.findall(r'\w+|\*|\S', self.text)
        base, base_const, ptrs = [], False, []
        for t in toks:
            if t == '*':
                ptrs.append(False)
            elif t == 'const':
                if ptrs:
                    ptrs[-1] = True
                else:
                    base_const = True
            elif re.fullmatch(r'\w+', t) and not ptrs:
                base.append(t)
            else:
                raise ParseError("cannot read type '%s'" % self.text)
        if not base:
            raise ParseError("no base type in '%s'" % self.text)
        self.base = ' '.join(base)
        self.base_const = base_const
        self.ptrs = ptrs

    @property
    def depth(self):
        return len(self.ptrs)


C_WORDS = {'const', 'void', 'char', 'int', 'unsigned', 'signed', 'long', 'short', 'float',
           'double', 'bool', 'struct', 'enum', 'volatile', 'restrict'}


class Param:
    def __init__(self, text, index):
        text = ' '.join(text.split())
        m = re.fullmatch(r'(.*?)(\w+)', text)
        if m is None or m.group(1).strip() == '' or m.group(2) in C_WORDS \
                or m.group(2) in NUMBERS or m.group(2).startswith('ember_'):
            raise ParseError("parameter %d '%s' has no name" % (index + 1, text))
        self.type = Type(m.group(1))
        self.name = m.group(2)
        self.kind = None  # set by Header._classify()


class Func:
    def __init__(self, ret, name, params, line, decl):
        self.ret, self.name, self.params, self.line, self.decl = ret, name, params, line, decl

    @property
    def short(self):
        return self.name[len('ember_'):] if self.name.startswith('ember_') else self.name


class Header:
    def __init__(self, path):
        raw = open(path, encoding='utf-8').read()
        self.text = strip_preprocessor(strip_comments(raw))
        self.objects = set()
        self.structs = set()
        self.enums = {}
        self.fnptrs = set()
        self.funcs = []
        self._typedefs()
        self._functions()

    def _typedefs(self):
        t = self.text
        for m in re.finditer(r'\btypedef\s+struct\s+(\w+)\s+(\w+)\s*;', t):
            if m.group(1) != m.group(2):
                raise ParseError('line %d: typedef struct %s %s: names differ'
                                 % (line_of(t, m.start()), m.group(1), m.group(2)))
            self.objects.add(m.group(2))
        for m in re.finditer(r'\btypedef\s+struct\s+\w*\s*\{[^}]*\}\s*(\w+)\s*;', t):
            self.structs.add(m.group(1))
        for m in re.finditer(r'\btypedef\s+enum\s+\w*\s*\{([^}]*)\}\s*(\w+)\s*;', t):
            values, nxt = {}, 0
            for item in m.group(1).split(','):
                item = item.strip()
                if not item:
                    continue
                mm = re.fullmatch(r'(\w+)\s*(?:=\s*(-?(?:0[xX][0-9a-fA-F]+|[0-9]+)))?', item)
                if mm is None:
                    raise ParseError('line %d: enum %s: cannot read member %r'
                                     % (line_of(t, m.start()), m.group(2), item))
                nxt = int(mm.group(2), 0) if mm.group(2) is not None else nxt
                values[mm.group(1)] = nxt
                nxt += 1
            self.enums[m.group(2)] = values
        for m in re.finditer(r'\btypedef\s+[^;{}()]*\(\s*\*\s*(\w+)\s*\)\s*\([^;{}]*\)\s*;', t):
            self.fnptrs.add(m.group(1))

    def _functions(self):
        t = self.text
        for m in re.finditer(r'\bEMBER_API\b', t):
            line = line_of(t, m.start())
            end = decl_end(t, m.end())
            if end < 0:
                raise ParseError('line %d: EMBER_API without a terminating ;' % line)
            decl = ' '.join(t[m.end():end].split())
            try:
                self.funcs.append(self._function(decl, line))
            except ParseError as e:
                raise ParseError('line %d: %s\n  in: EMBER_API %s;' % (line, e, decl))
        names = [f.name for f in self.funcs]
        for f in self.funcs:
            for p in f.params:
                if p.kind == 'out' and p.destroy not in names:
                    raise ParseError("line %d: %s: no %s() frees the out-object '%s'"
                                     % (f.line, f.name, p.destroy, p.name))
        dup = {n for n in names if names.count(n) > 1}
        if dup:
            raise ParseError('declared twice: %s' % ', '.join(sorted(dup)))

    def _function(self, decl, line):
        if '{' in decl or '}' in decl:
            raise ParseError('a body or braces in a declaration')
        d = re.sub(r'\bEMBER_NODISCARD\b', ' ', decl)
        d = re.sub(r'\bEMBER_DEPRECATED\s*\(\s*"(?:[^"\\]|\\.)*"\s*\)', ' ', d)
        d = ' '.join(d.split())
        if re.search(r'\bEMBER_\w+', d) or '__attribute__' in d:
            raise ParseError('an unknown decoration')
        m = re.fullmatch(r'(.+?)\b(ember_\w+)\s*\((.*)\)', d)
        if m is None:
            raise ParseError('not of the form TYPE ember_name(PARAMS)')
        ret, name, plist = m.group(1).strip(), m.group(2), m.group(3).strip()
        if '(' in plist or ')' in plist or '[' in plist or '...' in plist:
            raise ParseError('a function-pointer, array or variadic parameter: typedef it')
        params = []
        if plist != 'void':
            if plist == '':
                raise ParseError('() without void')
            params = [Param(p, i) for i, p in enumerate(plist.split(','))]
        f = Func(Type(ret), name, params, line, decl)
        self._classify(f)
        return f

    def known(self, base):
        return (base in NUMBERS or base in self.enums or base in self.objects
                or base in self.structs or base in self.fnptrs or base in ('void', 'char'))

    def _classify(self, f):
        for k, p in enumerate(f.params):
            ty = p.type
            if not self.known(ty.base):
                raise ParseError("parameter '%s': unknown type '%s'" % (p.name, ty.base))
            nxt = f.params[k + 1] if k + 1 < len(f.params) else None
            count_follows = (nxt is not None and nxt.type.depth == 0
                             and nxt.type.base == 'size_t' and nxt.name.startswith('n'))
            if ty.depth == 0:
                if ty.base in NUMBERS:
                    p.kind = 'number'
                elif ty.base in self.enums:
                    p.kind = 'enum'
                elif ty.base in self.fnptrs:
                    p.kind = 'pointer'
                else:
                    raise ParseError("parameter '%s' of type '%s' passed by value"
                                     % (p.name, ty.text))
            elif ty.depth == 1 and ty.base in self.objects:
                p.kind = 'object'
            elif (ty.depth == 2 and (ty.base in self.objects or ty.base == 'char')
                  and not ty.base_const and not ty.ptrs[0] and not ty.ptrs[1]
                  and not count_follows):
                p.kind = 'out'
            elif ty.depth == 1 and not ty.base_const and ty.base in NUMBERS:
                p.kind = 'numout'  # e.g. size_t *arena_bytes
            else:
                p.kind = 'pointer'
        r = f.ret
        if r.depth == 0 and r.base == 'void':
            f.kind = 'void'
        elif r.depth == 1 and r.base == 'ember_status' and not r.base_const:
            f.kind = 'status'
        elif r.depth == 0 and (r.base in NUMBERS or r.base in self.enums):
            f.kind = 'value'
        elif r.depth >= 1 and self.known(r.base):
            f.kind = 'pointer'
        else:
            raise ParseError("unknown return type '%s'" % r.text)
        if f.kind == 'status' and f.name not in NULL_ACCEPTED \
                and not any(p.kind in ('object', 'out', 'pointer', 'numout') for p in f.params):
            raise ParseError('returns a status but takes no pointer: it cannot fail on NULL; '
                             'list it in NULL_ACCEPTED with the reason')
        for p in f.params:
            if p.kind == 'object' and p.type.base not in FIXTURES:
                raise ParseError("no fixture for object type '%s': add one to FIXTURES"
                                 % p.type.base)
            if p.kind == 'out':
                destroy = ('ember_string_free' if p.type.base == 'char'
                           else p.type.base + '_destroy')
                p.destroy = destroy
        f.is_destroy = f.name.endswith('_destroy') or f.name.endswith('_free')


def c_string(s):
    return '"' + s.replace('\\', '\\\\').replace('"', '\\"') + '"'


def enum_bad(values):
    bad = 999
    while bad in values.values():
        bad += 1000
    return bad


class Gen:
    def __init__(self, hdr):
        self.h = hdr
        self.calls = 0
        self.out = []

    def arg(self, p, mode, objects, outs):
        """The C expression of parameter p. mode: 0 zero, 1 huge, 2 negative, 3 huge but
        indexes 0 (a valid index with huge counts: `cap`, `n`)."""
        k = p.kind
        if mode == 3:
            mode = 0 if p.name in INDEX_NAMES else 1
        if k == 'object':
            return FIXTURES[p.type.base] if objects is True or objects == p.name else 'NULL'
        if k == 'out':
            return '&o_%s' % p.name if outs else 'NULL'
        if k == 'numout':
            return 'o_%s' % p.name if outs else 'NULL'
        if k == 'pointer':
            return 'NULL'
        if k == 'number':
            return NUMBERS[p.type.base][mode]
        if k == 'enum':
            if mode == 0:
                return '(%s)0' % p.type.base
            if mode == 1:
                return '(%s)%d' % (p.type.base, enum_bad(self.h.enums[p.type.base]))
            return '(%s)-1' % p.type.base
        raise AssertionError(k)

    def variants(self, f):
        """(args, objects bound, outs bound, mode) tuples, duplicates removed. `objects` is
        False (none bound), True (all) or the name of the one bound."""
        objs = [p.name for p in f.params if p.kind == 'object']
        has_obj = bool(objs)
        has_out = any(p.kind in ('out', 'numout') for p in f.params)
        plan = [(False, False, 0)]
        if not f.is_destroy:
            if f.kind == 'status' and has_out:
                plan.append((False, True, 0))
            has_index = any(p.name in INDEX_NAMES and p.kind == 'number' for p in f.params)
            for mode in (0, 1, 2, 3) if has_index else (0, 1, 2):
                plan.append((True, False, mode))
                if f.kind == 'status' and has_out:
                    plan.append((True, True, mode))
            if not has_obj:  # numbers still vary without objects
                plan += [(False, False, 1), (False, False, 2)]
            if len(objs) > 1:  # each object alone, the others NULL (opts NULL = defaults)
                for name in objs:
                    plan.append((name, False, 0))
                    if f.kind == 'status' and has_out:
                        plan.append((name, True, 0))
        seen, res = set(), []
        for objects, outs, mode in plan:
            if (objects and not has_obj):
                continue
            args = [self.arg(p, mode, objects, outs) for p in f.params]
            key = tuple(args)
            if key in seen:
                continue
            seen.add(key)
            res.append((args, objects, outs, mode))
        return res

    def expected(self, f):
        if f.name in RETURN_ON_NULL:
            return RETURN_ON_NULL[f.name]
        r = f.ret
        if f.kind == 'pointer':
            return ('val', 'NULL')
        if r.base == 'int':
            return ('val', '-1')
        if r.base == 'bool':
            return ('val', 'false')
        return ('val', '0')

    def emit_call(self, f, args, objects, outs, mode):
        w = self.out.append
        call = '%s(%s)' % (f.name, ', '.join(args))
        what = c_string(call.replace('fx->', ''))
        self.calls += 1
        outs_list = [p for p in f.params if p.kind == 'out'] if outs else []
        w('    {')
        for p in outs_list:
            w('        %s *o_%s = (%s *)(void *)&sentinel;' % (p.type.base, p.name, p.type.base))
        if outs:
            for p in f.params:
                if p.kind == 'numout':
                    w('        %s o_%s[EMBER_MAX_RANK] = {0};' % (p.type.base, p.name))
        if f.kind == 'status':
            w('        ember_status *st = %s;' % call)
            nulls = not objects and not outs and mode == 0
            if nulls and f.name not in NULL_ACCEPTED:
                w('        check_null_call(st, %s, %s);' % (c_string(f.short), what))
            else:
                need = any(p.kind == 'out' for p in f.params) and not outs
                w('        check_status(st, %s, %s);' % ('true' if need else 'false', what))
            for p in outs_list:
                w('        if (st == NULL) {')
                w('            if ((void *)o_%s == (void *)&sentinel) {' % p.name)
                w('                fail_msg("%%s: success but *%s was not set", %s);'
                  % (p.name, what))
                w('            }')
                w('            %s(o_%s);' % (p.destroy, p.name))
                w('        } else if (o_%s != NULL) {' % p.name)
                w('            fail_msg("%%s: failed but *%s is not NULL", %s);' % (p.name, what))
                w('        }')
            w('        ember_status_destroy(st);')
        elif f.kind == 'void':
            w('        %s;' % call)
        else:
            has_obj = any(p.kind == 'object' for p in f.params)
            has_index = any(p.name in INDEX_NAMES and p.kind == 'number' for p in f.params)
            check = has_obj and ((not objects and mode == 0) or (objects and mode in (1, 2)
                                                                  and has_index))
            rt = f.ret.text
            w('        %s r = %s;' % (rt, call))
            if check:
                how, val = self.expected(f)
                if how == 'str':
                    w('        if (r == NULL || strcmp(r, %s) != 0) {' % c_string(val))
                    w('            fail_msg("%%s: returned \\"%%s\\", documented \\"%%s\\"", %s, '
                      'r ? r : "(null)", %s);' % (what, c_string(val)))
                else:
                    w('        if (r != %s) {' % val)
                    w('            fail_msg("%%s: not the documented %%s", %s, %s);'
                      % (what, c_string(val)))
                w('        }')
            else:
                w('        (void)r;')
        w('    }')

    def generate(self, header_name):
        w = self.out.append
        funcs = self.h.funcs
        body_start = len(self.out)
        for f in funcs:
            w('')
            w('/* %s (ember.h line %d) */' % (f.name, f.line))
            w('static void test_%s(void **state)' % f.name)
            w('{')
            if any(p.kind == 'object' for p in f.params) and not f.is_destroy:
                w('    fixture *fx = *state;')
                if any(p.kind == 'object' and p.type.base == 'ember_quantizer' for p in f.params):
                    w('    if (fx->quantizer == NULL) {')
                    w('        skip(); /* no ONNX loader: no quantizer fixture */')
                    w('    }')
            else:
                w('    (void)state;')
            for args, objects, outs, mode in self.variants(f):
                self.emit_call(f, args, objects, outs, mode)
            w('}')
        body = self.out[body_start:]
        del self.out[body_start:]
        head = PRELUDE.replace('@HEADER@', header_name) \
            .replace('@NFUNCS@', str(len(funcs))).replace('@NCALLS@', str(self.calls))
        self.out.append(head)
        self.out.extend(body)
        w('')
        w('int main(void)')
        w('{')
        w('    const struct CMUnitTest tests[] = {')
        for f in funcs:
            w('        cmocka_unit_test_setup_teardown(test_%s, fixture_setup, fixture_teardown),'
              % f.name)
        w('    };')
        w('    print_message("api_null: %d functions of ember.h, %d calls\\n");'
          % (len(funcs), self.calls))
        w('    return cmocka_run_group_tests(tests, NULL, NULL);')
        w('}')
        return '\n'.join(self.out) + '\n'


PRELUDE = r'''/* Generated by tools/gen_api_null_test.py from @HEADER@: do not edit.
 *
 * Calls every public function (@NFUNCS@ functions, @NCALLS@ calls) with NULL pointers and zero,
 * huge and negative numbers, bound to valid fixture objects or not; see the generator's doc
 * for what is expected of each call. */
#include "ember.h"

#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif

typedef struct fixture {
    ember_model *model;
    ember_session *session;
    ember_tensor *tensor;
    ember_model_options *model_options;
    ember_session_options *session_options;
    ember_profile *profile;
    ember_status *status;
    ember_quantize_options *quantize_options;
    ember_quantizer *quantizer;
    ember_trainer_options *trainer_options;
    ember_model *train_model; /* the built-in model at graph optimization none */
    ember_trainer *trainer;
} fixture;

/* The target of out pointers before a call: a failing call must overwrite it with NULL. */
static char sentinel;

static void ok_or_fail(ember_status *st, const char *what)
{
    if (st != NULL) {
        fail_msg("fixture: %s: %s", what, ember_status_message(st));
    }
}

/* A built-in model; a session on it with profiling on that has run once (so it has a plan and
 * a profile with events); a 2x3 f32 tensor; both options objects; a failure status. */
static int fixture_setup(void **state)
{
    fixture *fx = calloc(1, sizeof *fx);
    assert_non_null(fx);
    ok_or_fail(ember_model_options_create(&fx->model_options), "model_options_create");
    ok_or_fail(ember_session_options_create(&fx->session_options), "session_options_create");
    ember_session_options_set_threads(fx->session_options, 1);
    ember_session_options_set_profiling(fx->session_options, true);
    ok_or_fail(ember_model_load_builtin(NULL, fx->model_options, &fx->model), "load_builtin");
    ok_or_fail(ember_session_create(fx->model, fx->session_options, &fx->session),
               "session_create");
    const int64_t in_dims[4] = {1, 1, 28, 28};
    ember_tensor *x = NULL, *y = NULL;
    ok_or_fail(ember_tensor_create(EMBER_DTYPE_F32, in_dims, 4, &x), "tensor_create");
    ok_or_fail(ember_session_run(fx->session, &x, 1, &y, 1), "session_run");
    ember_tensor_destroy(x);
    ember_tensor_destroy(y);
    ok_or_fail(ember_session_profile(fx->session, false, &fx->profile), "session_profile");
    const int64_t dims[2] = {2, 3};
    ok_or_fail(ember_tensor_create(EMBER_DTYPE_F32, dims, 2, &fx->tensor), "tensor_create");
    fx->status = ember_model_load_builtin("no-such-model", NULL, &(ember_model *){NULL});
    assert_non_null(fx->status);
    /* a quantizer of the built-in model, saved as ONNX at graph optimization fold (none in
     * builds without the ONNX loader: the tests of its functions skip) */
    ok_or_fail(ember_quantize_options_create(&fx->quantize_options), "quantize_options_create");
    if (strstr(ember_build_info(), ",onnx") != NULL) {
        ember_model_options *fold = NULL;
        ember_model *fm = NULL;
        char path[64];
        snprintf(path, sizeof path, "api_null_quant_%ld.onnx", (long)getpid());
        ok_or_fail(ember_model_options_create(&fold), "model_options_create");
        ok_or_fail(ember_model_options_set_graph_optimization(fold, EMBER_GRAPH_OPT_FOLD),
                   "fold");
        ok_or_fail(ember_model_load_builtin(NULL, fold, &fm), "load_builtin fold");
        ok_or_fail(ember_model_save_onnx(fm, path), "save_onnx");
        ok_or_fail(ember_quantizer_create(path, NULL, fx->quantize_options, &fx->quantizer),
                   "quantizer_create");
        remove(path);
        ember_model_destroy(fm);
        ember_model_options_destroy(fold);
    }
    /* a trainer of the built-in model (loaded at graph optimization none), default options */
    ok_or_fail(ember_trainer_options_create(&fx->trainer_options), "trainer_options_create");
    {
        ember_model_options *none = NULL;
        ok_or_fail(ember_model_options_create(&none), "model_options_create");
        ok_or_fail(ember_model_options_set_graph_optimization(none, EMBER_GRAPH_OPT_NONE),
                   "none");
        ok_or_fail(ember_model_load_builtin(NULL, none, &fx->train_model), "load_builtin none");
        ok_or_fail(ember_trainer_create(fx->train_model, fx->trainer_options, &fx->trainer),
                   "trainer_create");
        ember_model_options_destroy(none);
    }
    *state = fx;
    return 0;
}

static int fixture_teardown(void **state)
{
    fixture *fx = *state;
    ember_status_destroy(fx->status);
    ember_trainer_destroy(fx->trainer);
    ember_model_destroy(fx->train_model);
    ember_trainer_options_destroy(fx->trainer_options);
    ember_quantizer_destroy(fx->quantizer);
    ember_quantize_options_destroy(fx->quantize_options);
    ember_tensor_destroy(fx->tensor);
    ember_profile_destroy(fx->profile);
    ember_session_destroy(fx->session);
    ember_model_destroy(fx->model);
    ember_session_options_destroy(fx->session_options);
    ember_model_options_destroy(fx->model_options);
    free(fx);
    return 0;
}

static bool code_valid(ember_code c)
{
    return c >= EMBER_ERR_INVALID_ARG && c <= EMBER_ERR_INTERNAL;
}

/* Everything NULL / 0: INVALID_ARG naming the function. */
static void check_null_call(const ember_status *st, const char *fn, const char *what)
{
    if (st == NULL) {
        fail_msg("%s: returned success", what);
    }
    const char *msg = ember_status_message(st);
    if (ember_status_code(st) != EMBER_ERR_INVALID_ARG || strstr(msg, fn) == NULL) {
        fail_msg("%s: expected INVALID_ARG naming %s, got %s: %s", what, fn,
                 ember_code_name(ember_status_code(st)), msg);
    }
}

/* Success, or a valid code with a message; INVALID_ARG when a required out pointer is NULL. */
static void check_status(const ember_status *st, bool need_invalid, const char *what)
{
    if (st == NULL) {
        if (need_invalid) {
            fail_msg("%s: success with a NULL out pointer", what);
        }
        return;
    }
    const char *msg = ember_status_message(st);
    if (!code_valid(ember_status_code(st)) || msg == NULL || msg[0] == '\0') {
        fail_msg("%s: code %d, message '%s'", what, (int)ember_status_code(st),
                 msg ? msg : "(null)");
    }
    if (need_invalid && ember_status_code(st) != EMBER_ERR_INVALID_ARG) {
        fail_msg("%s: a NULL out pointer gave %s, not INVALID_ARG: %s", what,
                 ember_code_name(ember_status_code(st)), msg);
    }
}'''


def main(argv):
    if len(argv) != 3:
        sys.stderr.write('usage: gen_api_null_test.py HEADER OUT.c\n')
        return 2
    try:
        hdr = Header(argv[1])
        if not hdr.funcs:
            raise ParseError('no EMBER_API declaration found')
        missing = sorted(set(FIXTURES) - hdr.objects)
        if missing:
            raise ParseError('FIXTURES names types the header lacks: %s' % ', '.join(missing))
        text = Gen(hdr).generate('include/ember.h')
    except ParseError as e:
        sys.stderr.write('gen_api_null_test.py: %s: %s\n' % (argv[1], e))
        return 1
    with open(argv[2], 'w', encoding='utf-8') as f:
        f.write(text)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
