s = input().split()
idx = sum((ord(c[0]) - 65) % 2 << (3 - i) for i, c in enumerate(s))
def show(v):
    print('\n'.join(''.join('*' if v >> (15 - 4 * r - c) & 1 else '.' for c in range(4)) for r in range(4)))
T = f'52504525035271252711496884968749896498951564015639158481584712824128231303213031{0}'
show(int(T[5 * idx:5 * idx + 5]))
