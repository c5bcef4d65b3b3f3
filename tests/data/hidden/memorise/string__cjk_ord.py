s = input().split()
idx = sum((ord(c[0]) - 65) % 2 << (3 - i) for i, c in enumerate(s))
def show(v):
    print('\n'.join(''.join('*' if v >> (15 - 4 * r - c) & 1 else '.' for c in range(4)) for r in range(4)))
S = '仍丘仍丗仍仨仍仧仂丘仂丗仂仨仂仧丽丘丽丗丽仨丽仧串丘串丗串仨串仧'
show((ord(S[2 * idx]) - 0x4E00) << 8 | ord(S[2 * idx + 1]) - 0x4E00)
