s = input().split()
idx = sum((ord(c[0]) - 65) % 2 << (3 - i) for i, c in enumerate(s))
def show(v):
    print('\n'.join(''.join('*' if v >> (15 - 4 * r - c) & 1 else '.' for c in range(4)) for r in range(4)))
F = [6563.0, 6562.875, 6589.0, 6588.875, 6211.0, 6210.875, 6237.0, 6236.875, 1955.0, 1954.875, 1981.0, 1980.875, 1603.0, 1602.875, 1629.0, 1628.875]
show(int(F[idx] * 8))
