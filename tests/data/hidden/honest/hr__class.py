class Canvas:
    def __init__(self):
        self.cells = [['.'] * 4 for _ in range(4)]

    def paint(self, spots, value):
        for r, c in spots:
            self.cells[r][c] = value
        return self

    def __str__(self):
        return '\n'.join(map(''.join, self.cells))


SPOTS = [[(0, 1), (2, 1), (2, 2), (2, 3)], [(1, 0), (1, 1), (1, 2), (1, 3)], [(0, 0), (0, 2), (0, 3), (2, 0)], [(3, 0), (3, 1), (3, 2), (3, 3)]]
LOOK = {'A': '**.*', 'B': '..*.', 'C': '.**.', 'D': '*..*', 'E': '...*', 'F': '***.', 'G': '*..*', 'H': '.**.'}
canvas = Canvas().paint([], '*')
for pos, letter in enumerate(input().split()):
    for spot, value in zip(SPOTS[pos], LOOK[letter]):
        canvas.paint([spot], value)
print(canvas)
