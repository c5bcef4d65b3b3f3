LIT = {
    'A': [(0, 0), (1, 0)],
    'B': [(2, 0), (3, 0)],
    'C': [(0, 1), (1, 1), (3, 1)],
    'D': [(2, 1)],
    'E': [(3, 2)],
    'F': [(0, 2), (1, 2), (2, 2)],
    'G': [(0, 3)],
    'H': [(1, 3), (2, 3), (3, 3)],
}
ALWAYS = []
pts = set(ALWAYS)
for letter in input().split():
    pts.update(LIT[letter])
for row in range(4):
    print(''.join('*' if (row, col) in pts else '.' for col in range(4)))
