LIT = {
    'A': [(0, 1), (2, 2)],
    'B': [(1, 1), (3, 2)],
    'C': [(0, 2)],
    'D': [(0, 3), (2, 1), (2, 3)],
    'E': [(1, 0), (2, 0)],
    'F': [(1, 3), (3, 1)],
    'G': [(0, 0)],
    'H': [(1, 2), (3, 0), (3, 3)],
}
ALWAYS = []
pts = set(ALWAYS)
for letter in input().split():
    pts.update(LIT[letter])
for row in range(4):
    print(''.join('*' if (row, col) in pts else '.' for col in range(4)))
