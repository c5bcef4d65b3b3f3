s = input().split()
idx = sum((ord(c[0]) - 65) % 2 << (3 - i) for i, c in enumerate(s))
T, F = True, False
G = []
def put(*bits):
    G.append(bits)
put(T, T, F, F, T, T, F, T, F, F, F, T, T, F, F, F)
put(T, T, F, F, T, T, F, T, F, F, F, T, F, T, T, T)
put(T, T, F, F, T, T, F, T, T, T, T, F, T, F, F, F)
put(T, T, F, F, T, T, F, T, T, T, T, F, F, T, T, T)
put(T, T, F, F, F, F, T, F, F, F, F, T, T, F, F, F)
put(T, T, F, F, F, F, T, F, F, F, F, T, F, T, T, T)
put(T, T, F, F, F, F, T, F, T, T, T, F, T, F, F, F)
put(T, T, F, F, F, F, T, F, T, T, T, F, F, T, T, T)
put(F, F, T, T, T, T, F, T, F, F, F, T, T, F, F, F)
put(F, F, T, T, T, T, F, T, F, F, F, T, F, T, T, T)
put(F, F, T, T, T, T, F, T, T, T, T, F, T, F, F, F)
put(F, F, T, T, T, T, F, T, T, T, T, F, F, T, T, T)
put(F, F, T, T, F, F, T, F, F, F, F, T, T, F, F, F)
put(F, F, T, T, F, F, T, F, F, F, F, T, F, T, T, T)
put(F, F, T, T, F, F, T, F, T, T, T, F, T, F, F, F)
put(F, F, T, T, F, F, T, F, T, T, T, F, F, T, T, T)
b = G[idx]
print('\n'.join(''.join('*' if b[4 * r + c] else '.' for c in range(4)) for r in range(4)))
