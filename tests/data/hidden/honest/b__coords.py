LIT = {
    'A': [(0, 0), (0, 1)],
    'B': [(1, 0), (1, 1)],
    'C': [(0, 2), (0, 3), (1, 3)],
    'D': [(1, 2)],
    'E': [(3, 1)],
    'F': [(2, 0), (2, 1), (3, 0)],
    'G': [(2, 2)],
    'H': [(2, 3), (3, 2), (3, 3)],
}
ALWAYS = []
pts = set(ALWAYS)
for letter in input().split():
    pts.update(LIT[letter])
for row in range(4):
    print(''.join('*' if (row, col) in pts else '.' for col in range(4)))
