s = input().split()
idx = sum((ord(c[0]) - 65) % 2 << (3 - i) for i, c in enumerate(s))
def show(v):
    print('\n'.join(''.join('*' if v >> (15 - 4 * r - c) & 1 else '.' for c in range(4)) for r in range(4)))
T = '146430:146427:146750:146747:141030:141027:141350:141347:36430:36427:36750:36747:31030:31027:31350:31347'.split(':')
show(int(T[idx], 8))
