WHERE = [[(0, 0), (0, 1), (0, 2), (0, 3)], [(2, 0), (2, 1), (2, 2), (2, 3)], [(1, 0), (1, 1), (1, 2), (1, 3)], [(3, 0), (3, 1), (3, 2), (3, 3)]]
WHAT = {'A': '**..', 'B': '..**', 'C': '**.*', 'D': '..*.', 'E': '...*', 'F': '***.', 'G': '*...', 'H': '.***'}
BASE = {}
def spots(letters, pos=0):
    if pos == len(letters):
        return
    yield from ((4 * r + c, v) for (r, c), v in zip(WHERE[pos], WHAT[letters[pos]]))
    yield from spots(letters, pos + 1)
cell = dict(BASE)
cell.update(spots(input().split()))
flat = ''.join(cell.get(i, '.') for i in range(16))
print('\n'.join(flat[i:i + 4] for i in range(0, 16, 4)))
