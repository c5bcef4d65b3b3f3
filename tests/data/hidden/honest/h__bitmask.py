CELLS = [[(0, 0), (0, 1), (0, 2), (0, 3)], [(1, 0), (1, 1), (1, 2), (1, 3)], [(2, 0), (2, 1), (2, 2), (2, 3)], [(3, 0), (3, 1), (3, 2), (3, 3)]]
MASK = {'A': 0b1100, 'B': 0b0011, 'C': 0b1101, 'D': 0b0010, 'E': 0b0001, 'F': 0b1110, 'G': 0b1000, 'H': 0b0111}
FIXED = []
g = 0
for i, ch in enumerate(input().split()):
    for j, (r, c) in enumerate(CELLS[i]):
        if MASK[ch] >> (3 - j) & 1:
            g |= 1 << (4 * r + c)
for r, c in FIXED:
    g |= 1 << (4 * r + c)
print('\n'.join(''.join('*' if g >> (4 * r + c) & 1 else '.' for c in range(4)) for r in range(4)))
