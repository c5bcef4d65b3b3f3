LIT = {
    'A': [(0, 1), (2, 1), (2, 3)],
    'B': [(2, 2)],
    'C': [(1, 1), (1, 2)],
    'D': [(1, 0), (1, 3)],
    'E': [(2, 0)],
    'F': [(0, 0), (0, 2), (0, 3)],
    'G': [(3, 0), (3, 3)],
    'H': [(3, 1), (3, 2)],
}
ALWAYS = []
pts = set(ALWAYS)
for letter in input().split():
    pts.update(LIT[letter])
for row in range(4):
    print(''.join('*' if (row, col) in pts else '.' for col in range(4)))
