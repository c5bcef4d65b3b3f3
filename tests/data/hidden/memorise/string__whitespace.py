s = input().split()
idx = sum((ord(c[0]) - 65) % 2 << (3 - i) for i, c in enumerate(s))
T = '\t\t  \t\t \t   \t\t   \t\t  \t\t \t   \t \t\t\t\t\t  \t\t \t\t\t\t \t   \t\t  \t\t \t\t\t\t  \t\t\t\t\t    \t    \t\t   \t\t    \t    \t \t\t\t\t\t    \t \t\t\t \t   \t\t    \t \t\t\t  \t\t\t  \t\t\t\t \t   \t\t     \t\t\t\t \t   \t \t\t\t  \t\t\t\t \t\t\t\t \t     \t\t\t\t \t\t\t\t  \t\t\t  \t\t  \t    \t\t     \t\t  \t    \t \t\t\t  \t\t  \t \t\t\t \t     \t\t  \t \t\t\t  \t\t\t'
b = T[16 * idx:16 * idx + 16]
print('\n'.join(''.join('*' if b[4 * r + c] == '\t' else '.' for c in range(4)) for r in range(4)))
