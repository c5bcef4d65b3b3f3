LIT = {
    'A': [(0, 0), (0, 1)],
    'B': [(0, 2), (0, 3)],
    'C': [(1, 0), (1, 1), (1, 3)],
    'D': [(1, 2)],
    'E': [(2, 3)],
    'F': [(2, 0), (2, 1), (2, 2)],
    'G': [(3, 0)],
    'H': [(3, 1), (3, 2), (3, 3)],
}
ALWAYS = []
pts = set(ALWAYS)
for letter in input().split():
    pts.update(LIT[letter])
for row in range(4):
    print(''.join('*' if (row, col) in pts else '.' for col in range(4)))
