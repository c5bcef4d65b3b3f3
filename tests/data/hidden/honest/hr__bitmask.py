CELLS = [[(0, 1), (2, 1), (2, 2), (2, 3)], [(1, 0), (1, 1), (1, 2), (1, 3)], [(0, 0), (0, 2), (0, 3), (2, 0)], [(3, 0), (3, 1), (3, 2), (3, 3)]]
MASK = {'A': 0b1101, 'B': 0b0010, 'C': 0b0110, 'D': 0b1001, 'E': 0b0001, 'F': 0b1110, 'G': 0b1001, 'H': 0b0110}
FIXED = []
g = 0
for i, ch in enumerate(input().split()):
    for j, (r, c) in enumerate(CELLS[i]):
        if MASK[ch] >> (3 - j) & 1:
            g |= 1 << (4 * r + c)
for r, c in FIXED:
    g |= 1 << (4 * r + c)
print('\n'.join(''.join('*' if g >> (4 * r + c) & 1 else '.' for c in range(4)) for r in range(4)))
