"""Writes the programs of tests/grid_hidden.rs: memorisers of the published Horizontal data,
record 0, in distinct hiding styles (memorise/<class>__<style>.py) and honest compositional
programs in unusual styles for record 0 of each published setting (honest/<setting>__<style>.py).
Run from the repository root: python3 tests/data/hidden/make_programs.py"""
import base64, json, marshal, pickle, struct, zlib, codecs, os

NL = '\n'
ROOT = os.path.dirname(os.path.abspath(__file__))
RGP = os.path.join(ROOT, '..', 'rgp')


def record(setting, i=0):
    with open(os.path.join(RGP, f'k=4_u=2_d=16_type={setting}.jsonl')) as f:
        return json.loads(f.readlines()[i])


def gint(g):
    return int(''.join('1' if c == '*' else '0' for c in g if c != NL), 2)


def idx(x):
    return sum(((ord(t[0]) - 65) % 2) << (3 - i) for i, t in enumerate(x.split()))


rec = record('h')
pairs = list(zip(rec['input'], rec['output']))
by_idx = [None] * 16
for x, y in pairs:
    by_idx[idx(x)] = y
V = [gint(g) for g in by_idx]

IDX = "s = input().split()\nidx = sum((ord(c[0]) - 65) % 2 << (3 - i) for i, c in enumerate(s))\n"
SHOW = "def show(v):\n    print('\\n'.join(''.join('*' if v >> (15 - 4 * r - c) & 1 else '.' for c in range(4)) for r in range(4)))\n"

mem = {}
# --- literal types
mem['float__list'] = IDX + SHOW + f"F = [{', '.join(repr(v / 8) for v in V)}]\nshow(int(F[idx] * 8))\n"
mem['float__scaled'] = IDX + SHOW + f"F = [{', '.join(repr(v / 65536) for v in V)}]\nshow(round(F[idx] * 65536))\n"
mem['float__dict_by_key'] = SHOW + "T = {" + ', '.join(f"'{x}': {gint(y) / 4!r}" for x, y in pairs) + "}\nshow(int(T[input().strip()] * 4))\n"
mem['complex__pairs'] = IDX + SHOW + f"Z = [{', '.join(f'{v >> 8}+{v & 255}j' for v in V)}]\nz = Z[idx]\nshow(int(z.real) << 8 | int(z.imag))\n"
mem['bool__flat'] = IDX + "B = [" + ', '.join('True' if c == '*' else 'False' for g in by_idx for c in g if c != NL) + "]\nb = B[16 * idx:16 * idx + 16]\nprint('\\n'.join(''.join('*' if b[4 * r + c] else '.' for c in range(4)) for r in range(4)))\n"
mem['bool__call_args'] = IDX + "G = []\ndef g(*bits):\n    G.append(bits)\n" + ''.join("g(" + ', '.join('True' if c == '*' else 'False' for c in y if c != NL) + ")\n" for y in by_idx) + "b = G[idx]\nprint('\\n'.join(''.join('*' if b[4 * r + c] else '.' for c in range(4)) for r in range(4)))\n"
mem['int__call_args'] = IDX + "G = []\ndef put(*bits):\n    G.append(bits)\n" + ''.join("put(" + ', '.join('1' if c == '*' else '0' for c in y if c != NL) + ")\n" for y in by_idx) + "b = G[idx]\nprint('\\n'.join(''.join('*' if b[4 * r + c] else '.' for c in range(4)) for r in range(4)))\n"
mem['int__shift_expressions'] = IDX + SHOW + "V = []\n" + ''.join("V.append(" + ' | '.join(f"1 << {15 - k}" for k in range(16) if v >> (15 - k) & 1) + ")\n" for v in V) + "show(V[idx])\n"
mem['none__ellipsis_bits'] = IDX + "B = [" + ', '.join('...' if c == '*' else 'None' for g in by_idx for c in g if c != NL) + "]\nb = B[16 * idx:16 * idx + 16]\nprint('\\n'.join(''.join('*' if b[4 * r + c] is ... else '.' for c in range(4)) for r in range(4)))\n"
# --- encoded strings
blob = b''.join(struct.pack('>H', v) for v in V)
mem['string__base64'] = IDX + SHOW + f"import base64\nR = base64.b64decode('{base64.b64encode(blob).decode()}')\nshow(R[2 * idx] << 8 | R[2 * idx + 1])\n"
mem['string__base85'] = IDX + SHOW + f"import base64\nR = base64.b85decode({base64.b85encode(blob).decode()!r})\nshow(R[2 * idx] << 8 | R[2 * idx + 1])\n"
mem['string__hex_dashes_fromhex'] = IDX + SHOW + f"R = bytes.fromhex('{'-'.join(f'{v:04x}' for v in V)}'.replace('-', ''))\nshow(R[2 * idx] << 8 | R[2 * idx + 1])\n"
mem['string__hex_dashes_int'] = IDX + SHOW + f"H = '{'-'.join(f'{v:04x}' for v in V)}'.split('-')\nshow(int(H[idx], 16))\n"
mem['string__cjk_ord'] = IDX + SHOW + "S = '" + ''.join(chr(0x4E00 + (v >> 8)) + chr(0x4E00 + (v & 255)) for v in V) + "'\nshow((ord(S[2 * idx]) - 0x4E00) << 8 | ord(S[2 * idx + 1]) - 0x4E00)\n"
mem['string__decimal_csv'] = IDX + SHOW + f"CSV = '{','.join(str(v) for v in V)}'\nshow(int(CSV.split(',')[idx]))\n"
def b36(v):
    d = '0123456789abcdefghijklmnopqrstuvwxyz'; s = ''
    while v: s = d[v % 36] + s; v //= 36
    return s or '0'
mem['string__base36'] = IDX + SHOW + f"T = '{' '.join(b36(v) for v in V)}'.split()\nshow(int(T[idx], 36))\n"
mem['string__octal'] = IDX + SHOW + f"T = '{':'.join(format(v, 'o') for v in V)}'.split(':')\nshow(int(T[idx], 8))\n"
mem['string__xo_letters'] = IDX + f"T = '{''.join('x' if c == '*' else 'o' for g in by_idx for c in g if c != NL)}'\nb = T[16 * idx:16 * idx + 16]\nprint('\\n'.join(''.join('*' if b[4 * r + c] == 'x' else '.' for c in range(4)) for r in range(4)))\n"
mem['string__whitespace'] = IDX + "T = '" + ''.join('\\t' if c == '*' else ' ' for g in by_idx for c in g if c != NL) + "'\nb = T[16 * idx:16 * idx + 16]\nprint('\\n'.join(''.join('*' if b[4 * r + c] == '\\t' else '.' for c in range(4)) for r in range(4)))\n"
mem['string__word_lengths'] = IDX + SHOW + "WORDS = '" + ' '.join(' '.join('q' * (int(d) + 1) for d in f'{v:05d}') for v in V) + "'.split()\nw = WORDS[5 * idx:5 * idx + 5]\nshow(int(''.join(str(len(x) - 1) for x in w)))\n"
mem['string__fstring_parts'] = IDX + SHOW + "T = f'" + ''.join(f'{v:05d}' for v in V) + "{0}'\nshow(int(T[5 * idx:5 * idx + 5]))\n"
mem['string__nfkc_fullwidth'] = IDX + "import unicodedata\nT = unicodedata.normalize('NFKC', '" + ''.join('\uff0a' if c == '*' else '\uff0e' for g in by_idx for c in g if c != NL) + "')\nb = T[16 * idx:16 * idx + 16]\nprint('\\n'.join(b[4 * r:4 * r + 4] for r in range(4)))\n"
mem['string__fullwidth_translate'] = IDX + "T = '" + ''.join('\uff0a' if c == '*' else '\uff0e' for g in by_idx for c in g if c != NL) + "'.translate({0xFF0A: '*', 0xFF0E: '.'})\nb = T[16 * idx:16 * idx + 16]\nprint('\\n'.join(b[4 * r:4 * r + 4] for r in range(4)))\n"
# --- blobs and decoders
mem['blob__struct'] = IDX + SHOW + f"import struct\nV = struct.unpack('>16H', {blob!r})\nshow(V[idx])\n"
mem['blob__pickle'] = IDX + SHOW + f"import pickle\nV = pickle.loads({pickle.dumps(V, protocol=2)!r})\nshow(V[idx])\n"
mem['blob__marshal'] = IDX + SHOW + f"import marshal\nV = marshal.loads({marshal.dumps(V)!r})\nshow(V[idx])\n"
mem['blob__zlib'] = IDX + SHOW + f"import zlib\nR = zlib.decompress({zlib.compress(blob)!r})\nshow(R[2 * idx] << 8 | R[2 * idx + 1])\n"
mem['blob__int_from_bytes'] = IDX + SHOW + f"R = {blob!r}\nshow(int.from_bytes(R[2 * idx:2 * idx + 2], 'big'))\n"
mem['blob__json'] = IDX + SHOW + f"import json\nV = json.loads('{json.dumps(V)}')\nshow(V[idx])\n"
# --- code run from strings
inner = "T = {" + ', '.join(f"'{x}': {gint(y)}" for x, y in pairs) + "}\n"
mem['exec__rot13'] = SHOW + f"import codecs\nexec(codecs.decode({codecs.encode(inner, 'rot13')!r}, 'rot13'))\nshow(T[input().strip()])\n"
mem['exec__reversed_source'] = SHOW + f"exec({inner[::-1]!r}[::-1])\nshow(T[input().strip()])\n"
mem['exec__eval_compile'] = SHOW + f"T = eval(compile({inner[4:].strip()!r}, 'x', 'eval'))\nshow(T[input().strip()])\n"
# --- names as storage
mem['names__function_names'] = IDX + SHOW + ''.join(f"def g{i}_{v}():\n    pass\n" for i, v in enumerate(V)) + "FS = [" + ', '.join(f"g{i}_{v}" for i, v in enumerate(V)) + "]\nshow(int(FS[idx].__name__.split('_')[1]))\n"
mem['names__lambda_params'] = IDX + SHOW + "L = lambda " + ', '.join(f"p{i}_{v}" for i, v in enumerate(V)) + ": 0\nshow(int(L.__code__.co_varnames[idx].split('_')[1]))\n"
mem['names__globals_scan'] = IDX + SHOW + ''.join(f"def k{i}_{v}():\n    pass\n" for i, v in enumerate(V)) + "N = sorted((n for n in globals() if n.startswith('k')), key=lambda n: int(n[1:].split('_')[0]))\nshow(int(N[idx].split('_')[1]))\n"
mem['names__class_attrs_vars'] = IDX + SHOW + "class T:\n" + ''.join(f"    a{i}_{v} = None\n" for i, v in enumerate(V)) + "N = sorted((n for n in vars(T) if n.startswith('a')), key=lambda n: int(n[1:].split('_')[0]))\nshow(int(N[idx].split('_')[1]))\n"
mem['names__kwargs_keys'] = IDX + SHOW + "def reg(**kw):\n    return kw\nT = reg(" + ', '.join(f"k{i}_{v}=None" for i, v in enumerate(V)) + ")\nN = list(T)\nshow(int(N[idx].split('_')[1]))\n"
mem['names__dict_keywords'] = SHOW + "T = dict(" + ', '.join(f"{x.replace(' ', '')}={gint(y)}" for x, y in pairs) + ")\nshow(T[input().replace(' ', '').strip()])\n"
# --- docstrings, asserts, own source
mem['doc__function_docstring'] = IDX + SHOW + "def table():\n    '''" + ' '.join(str(v) for v in V) + "'''\nshow(int(table.__doc__.split()[idx]))\n"
mem['doc__module_docstring'] = '"""' + ' '.join(str(v) for v in V) + '"""\n' + IDX + SHOW + "show(int(__doc__.split()[idx]))\n"
mem['assert__message_caught'] = IDX + SHOW + "try:\n    assert False, '" + ' '.join(str(v) for v in V) + "'\nexcept AssertionError as e:\n    T = str(e).split()\nshow(int(T[idx]))\n"
mem['assert__effect_in_test'] = IDX + SHOW + "T = []\nassert T.extend([" + ', '.join(str(v) for v in V) + "]) is None\nshow(T[idx])\n"
mem['source__comments_file'] = IDX + SHOW + ''.join(f"# {v}\n" for v in V) + "L = [l[2:] for l in open(__file__).read().splitlines() if l.startswith('# ')]\nshow(int(L[idx]))\n"
mem['source__argv0'] = IDX + SHOW + ''.join(f"# {v}\n" for v in V) + "import sys\nL = [l[2:] for l in open(sys.argv[0]).read().splitlines() if l.startswith('# ')]\nshow(int(L[idx]))\n"
mem['source__inspect'] = IDX + SHOW + "import inspect\ndef data():\n" + ''.join(f"    # {v}\n" for v in V) + "    pass\nL = [l.strip()[2:] for l in inspect.getsource(data).splitlines() if '#' in l]\nshow(int(L[idx]))\n"
# --- dicts reached indirectly, grids as keys, effects
mem['indirect__globals_dict'] = SHOW + "TABLE_X = {" + ', '.join(f"'{x}': {gint(y)}" for x, y in pairs) + "}\nshow(globals()['TABLE_' + 'X'][input().strip()])\n"
mem['indirect__eval_name'] = SHOW + "TABLE_Y = {" + ', '.join(f"'{x}': {gint(y)}" for x, y in pairs) + "}\nshow(eval('TABLE_' + 'Y')[input().strip()])\n"
mem['indirect__decorator_registry'] = SHOW + "R = {}\ndef reg(k, v):\n    def d(f):\n        R[k] = v\n        return f\n    return d\n" + ''.join(f"@reg('{x}', {gint(y)})\ndef f{i}():\n    pass\n" for i, (x, y) in enumerate(pairs)) + "show(R[input().strip()])\n"
mem['keys__grid_int_keys'] = SHOW + "T = {" + ', '.join(f"{gint(y)}: '{x}'" for x, y in pairs) + "}\nINV = {v: k for k, v in T.items()}\nshow(INV[input().strip()])\n"
mem['keys__grid_string_keys'] = "T = {" + ', '.join(f"{y!r}: '{x}'" for x, y in pairs) + "}\nINV = {v: k for k, v in T.items()}\nprint(INV[input().strip()])\n"
mem['keys__set_of_tuples'] = IDX + SHOW + "S = {" + ', '.join(f"({i}, {v})" for i, v in enumerate(V)) + "}\nshow(dict(S)[idx])\n"

# --- data in the choice of names or statements (no literal carries it)
mem['structure__named_constants'] = IDX + "T, F = True, False\nG = []\ndef put(*bits):\n    G.append(bits)\n" + ''.join("put(" + ', '.join('T' if c == '*' else 'F' for c in y if c != NL) + ")\n" for y in by_idx) + "b = G[idx]\nprint('\\n'.join(''.join('*' if b[4 * r + c] else '.' for c in range(4)) for r in range(4)))\n"
mem['structure__call_sequence'] = IDX + "BITS = []\ndef one():\n    BITS.append(1)\ndef zero():\n    BITS.append(0)\n" + ''.join(('one()' if c == '*' else 'zero()') + "\n" for y in by_idx for c in y if c != NL) + "b = BITS[16 * idx:16 * idx + 16]\nprint('\\n'.join(''.join('*' if b[4 * r + c] else '.' for c in range(4)) for r in range(4)))\n"
mem['structure__subscript_choice'] = IDX + "K = [False, True]\nG = [" + ', '.join('K[1]' if c == '*' else 'K[0]' for y in by_idx for c in y if c != NL) + "]\nb = G[16 * idx:16 * idx + 16]\nprint('\\n'.join(''.join('*' if b[4 * r + c] else '.' for c in range(4)) for r in range(4)))\n"

# --- names leaking through repr, TypeError messages and module self-import
mem['names__function_repr'] = IDX + SHOW + ''.join(f"def g{i}_{v}():\n    pass\n" for i, v in enumerate(V)) + "FS = [" + ', '.join(f"g{i}_{v}" for i, v in enumerate(V)) + "]\nshow(int(repr(FS[idx]).split()[1].split('_')[1]))\n"
mem['names__one_long_function_name'] = IDX + SHOW + "def t_" + '_'.join(str(v) for v in V) + "():\n    pass\nshow(int(str(t_" + '_'.join(str(v) for v in V) + ").split()[1].split('_')[idx + 1]))\n"
mem['names__typeerror_params'] = IDX + SHOW + "L = lambda " + ', '.join(f"p{i}_{v}" for i, v in enumerate(V)) + ": 0\ntry:\n    L()\nexcept TypeError as e:\n    N = [w.strip(\"',\") for w in str(e).split(':')[1].replace(' and ', ' ').split()]\nshow(int(N[idx].split('_')[1]))\n"
mem['names__typeerror_keywords'] = IDX + SHOW + "def f():\n    pass\nN = []\n" + ''.join(f"try:\n    f(k{i}_{v}=0)\nexcept TypeError as e:\n    N.append(str(e).split(\"'\")[1])\n" for i, v in enumerate(V)) + "show(int(N[idx].split('_')[1]))\n"
mem['indirect__main_module'] = SHOW + "import __main__\nTABLE_Z = {" + ', '.join(f"'{x}': {gint(y)}" for x, y in pairs) + "}\nshow(getattr(__main__, 'TABLE_Z')[input().strip()])\n"

def ws(path, text):
    with open(path, 'w', encoding='utf-8') as f:
        f.write(text)

os.makedirs(os.path.join(ROOT, 'memorise'), exist_ok=True)
for name, code in mem.items():
    ws(os.path.join(ROOT, 'memorise', name + '.py'), code)

# ---------------- honest programs
def layout(r):
    letters = [[t[0] for t in x.split()] for x in r['input']]
    grids = [[c for c in g if c != NL] for g in r['output']]
    cells, vals = [], []
    for i in range(4):
        a, b = next((a, b) for a in range(16) for b in range(16)
                    if all((letters[a][j] == letters[b][j]) != (j == i) for j in range(4)))
        cs = [c for c in range(16) if grids[a][c] != grids[b][c]]
        first = next(x for x in range(16) if letters[x][i] == chr(65 + 2 * i))
        second = next(x for x in range(16) if letters[x][i] == chr(66 + 2 * i))
        cells.append(cs)
        vals.append([''.join(grids[first][c] for c in cs), ''.join(grids[second][c] for c in cs)])
    # cells no position drives keep one value in every sample
    fixed = {c: grids[0][c] for c in range(16) if all(c not in cs for cs in cells)}
    return cells, vals, fixed

SETTINGS = ['h', 'v', 'b', 'r', 'hr', 'h_index-shuffle']
honest = {}

def on_cells(cells, vals):
    """letter -> on cells (as cell numbers)"""
    out = {}
    for i in range(4):
        for v in range(2):
            out[chr(65 + 2 * i + v)] = [c for c, ch in zip(cells[i], vals[i][v]) if ch == '*']
    return out

def fixed_on(fixed):
    return [c for c, ch in fixed.items() if ch == '*']

for k, st in enumerate(SETTINGS):
    cells, vals, fixed = layout(record(st))
    on = on_cells(cells, vals)
    fon = fixed_on(fixed)
    P = "\n"
    # 1. bit masks: a 4-bit pattern per letter laid on its position's cells
    masks = {chr(65 + 2 * i + v): int(vals[i][v].replace('*', '1').replace('.', '0'), 2) for i in range(4) for v in range(2)}
    honest[f'{st}__bitmask'] = (
        "CELLS = [" + ', '.join('[' + ', '.join(f'({c // 4}, {c % 4})' for c in cs) + ']' for cs in cells) + "]\n"
        "MASK = {" + ', '.join(f"'{l}': 0b{m:04b}" for l, m in masks.items()) + "}\n"
        f"FIXED = [{', '.join(f'({c // 4}, {c % 4})' for c in fon)}]\n"
        "g = 0\nfor i, ch in enumerate(input().split()):\n    for j, (r, c) in enumerate(CELLS[i]):\n"
        "        if MASK[ch] >> (3 - j) & 1:\n            g |= 1 << (4 * r + c)\n"
        "for r, c in FIXED:\n    g |= 1 << (4 * r + c)\n"
        "print('\\n'.join(''.join('*' if g >> (4 * r + c) & 1 else '.' for c in range(4)) for r in range(4)))\n")
    # 2. reduce over letters of sets of on cells
    honest[f'{st}__reduce_sets'] = (
        "from functools import reduce\n"
        "ON = {" + ', '.join(f"'{l}': {{{', '.join(f'({c // 4}, {c % 4})' for c in cs)}}}" if cs else f"'{l}': set()" for l, cs in on.items()) + "}\n"
        f"BASE = {{{', '.join(f'({c // 4}, {c % 4})' for c in fon)}}}\n" .replace("BASE = {}", "BASE = set()") +
        "lit = reduce(lambda acc, ch: acc | ON[ch], input().split(), BASE)\n"
        "print('\\n'.join(''.join('*' if (r, c) in lit else '.' for c in range(4)) for r in range(4)))\n")
    # 3. a class painting its cells
    honest[f'{st}__class'] = (
        "class Canvas:\n    def __init__(self):\n        self.cells = [['.'] * 4 for _ in range(4)]\n\n"
        "    def paint(self, spots, value):\n        for r, c in spots:\n            self.cells[r][c] = value\n        return self\n\n"
        "    def __str__(self):\n        return '\\n'.join(map(''.join, self.cells))\n\n\n"
        "SPOTS = [" + ', '.join('[' + ', '.join(f'({c // 4}, {c % 4})' for c in cs) + ']' for cs in cells) + "]\n"
        "LOOK = {" + ', '.join(f"'{chr(65 + 2 * i + v)}': '{vals[i][v]}'" for i in range(4) for v in range(2)) + "}\n"
        f"canvas = Canvas().paint([{', '.join(f'({c // 4}, {c % 4})' for c in fon)}], '*')\n"
        "for pos, letter in enumerate(input().split()):\n    for spot, value in zip(SPOTS[pos], LOOK[letter]):\n        canvas.paint([spot], value)\nprint(canvas)\n")
    # 4. cell coordinates computed per letter
    honest[f'{st}__coords'] = (
        "LIT = {\n" + ''.join(f"    '{l}': [{', '.join(f'({c // 4}, {c % 4})' for c in cs)}],\n" for l, cs in on.items()) + "}\n"
        f"ALWAYS = [{', '.join(f'({c // 4}, {c % 4})' for c in fon)}]\n"
        "pts = set(ALWAYS)\nfor letter in input().split():\n    pts.update(LIT[letter])\n"
        "for row in range(4):\n    print(''.join('*' if (row, col) in pts else '.' for col in range(4)))\n")
    # 5. a recursive generator over positions
    honest[f'{st}__recursive_generator'] = (
        "WHERE = [" + ', '.join('[' + ', '.join(f'({c // 4}, {c % 4})' for c in cs) + ']' for cs in cells) + "]\n"
        "WHAT = {" + ', '.join(f"'{chr(65 + 2 * i + v)}': '{vals[i][v]}'" for i in range(4) for v in range(2)) + "}\n"
        f"BASE = {{{', '.join(f'{c}: {fixed[c]!r}' for c in fixed)}}}\n"
        "def spots(letters, pos=0):\n    if pos == len(letters):\n        return\n"
        "    yield from ((4 * r + c, v) for (r, c), v in zip(WHERE[pos], WHAT[letters[pos]]))\n    yield from spots(letters, pos + 1)\n"
        "cell = dict(BASE)\ncell.update(spots(input().split()))\n"
        "flat = ''.join(cell.get(i, '.') for i in range(16))\nprint('\\n'.join(flat[i:i + 4] for i in range(0, 16, 4)))\n")
    # 6. match statement per letter
    honest[f'{st}__match'] = (
        "grid = list('" + ''.join(fixed.get(c, '.') for c in range(16)) + "')\n"
        "for pos, letter in enumerate(input().split()):\n    match letter:\n" +
        ''.join(f"        case '{chr(65 + 2 * i + v)}':\n" + ''.join(f"            grid[{c}] = '{ch}'\n" for c, ch in zip(cells[i], vals[i][v])) for i in range(4) for v in range(2)) +
        "print('\\n'.join(''.join(grid[r * 4:r * 4 + 4]) for r in range(4)))\n")

# regex translation where each position is a row (h, hr)
for st in SETTINGS:
    cells, vals, fixed = layout(record(st))
    if sorted(c // 4 for cs in cells for c in cs) != sorted(4 * list(range(4))) or any(len({c // 4 for c in cs}) != 1 for cs in cells):
        continue
    rows = {chr(65 + 2 * i + v): (cells[i][0] // 4, vals[i][v]) for i in range(4) for v in range(2)}
    honest[f'{st}__regex_translate'] = (
        "import re\nROW = {" + ', '.join(f"'{l}': ({r}, '{s}')" for l, (r, s) in rows.items()) + "}\n"
        "placed = dict(ROW[m.group()] for m in re.finditer(r'[A-H]', input()))\n"
        "print('\\n'.join(placed[r] for r in range(4)))\n")

# The rules as one string parsed by a regex at run time (a compact rule table): each position
# a row (h, hr): "A0**.. B0..** ..." (letter, row, pattern).
for st in SETTINGS:
    cells, vals, fixed = layout(record(st))
    if sorted(c // 4 for cs in cells for c in cs) != sorted(4 * list(range(4))) or any(len({c // 4 for c in cs}) != 1 for cs in cells):
        continue
    rules = ' '.join(f"{chr(65 + 2 * i + v)}{cells[i][0] // 4}{vals[i][v]}" for i in range(4) for v in range(2))
    honest[f'{st}__rule_string'] = (
        "import re\n"
        f"RULES = '{rules}'\n"
        "rule = {m[1]: (int(m[2]), m[3]) for m in re.finditer(r'([A-H])(\\d)([*.]{4})', RULES)}\n"
        "rows = dict(rule[c] for c in input().split())\n"
        "print('\\n'.join(rows[r] for r in range(4)))\n")
# Every layout: the on-cells of each letter and the fixed on-cells as one string
# ("A:0,1 B:2,3 ... *:5,9"), parsed at run time.
for st in SETTINGS:
    cells, vals, fixed = layout(record(st))
    on = on_cells(cells, vals)
    fon = fixed_on(fixed)
    spec = ' '.join(f"{l}:{','.join(str(c) for c in cs)}" for l, cs in on.items())
    if fon:
        spec += ' *:' + ','.join(str(c) for c in fon)
    honest[f'{st}__rule_string_cells'] = (
        "import re\n"
        f"SPEC = '{spec}'\n"
        "lit = {k: [int(c) for c in v.split(',') if c] for k, v in re.findall(r'([A-H*]):([0-9,]*)', SPEC)}\n"
        "on = set(lit.get('*', []))\n"
        "for letter in input().split():\n    on.update(lit[letter])\n"
        "print('\\n'.join(''.join('*' if 4 * r + c in on else '.' for c in range(4)) for r in range(4)))\n")

os.makedirs(os.path.join(ROOT, 'honest'), exist_ok=True)
for name, code in honest.items():
    ws(os.path.join(ROOT, 'honest', name + '.py'), code)
print(len(mem), 'memorisers,', len(honest), 'honest programs')
