s = input().split()
idx = sum((ord(c[0]) - 65) % 2 << (3 - i) for i, c in enumerate(s))
T = 'xxooxxoxoooxxoooxxooxxoxoooxoxxxxxooxxoxxxxoxoooxxooxxoxxxxooxxxxxooooxooooxxoooxxooooxooooxoxxxxxooooxoxxxoxoooxxooooxoxxxooxxxooxxxxoxoooxxoooooxxxxoxoooxoxxxooxxxxoxxxxoxoooooxxxxoxxxxooxxxooxxooxooooxxoooooxxooxooooxoxxxooxxooxoxxxoxoooooxxooxoxxxooxxx'
b = T[16 * idx:16 * idx + 16]
print('\n'.join(''.join('*' if b[4 * r + c] == 'x' else '.' for c in range(4)) for r in range(4)))
