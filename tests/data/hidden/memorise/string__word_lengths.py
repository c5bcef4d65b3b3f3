s = input().split()
idx = sum((ord(c[0]) - 65) % 2 << (3 - i) for i, c in enumerate(s))
def show(v):
    print('\n'.join(''.join('*' if v >> (15 - 4 * r - c) & 1 else '.' for c in range(4)) for r in range(4)))
WORDS = 'qqqqqq qqq qqqqqq q qqqqq qqqqqq qqq qqqqqq q qqqq qqqqqq qqq qqqqqqqq qq qqq qqqqqq qqq qqqqqqqq qq qq qqqqq qqqqqqqqqq qqqqqqq qqqqqqqqq qqqqqqqqq qqqqq qqqqqqqqqq qqqqqqq qqqqqqqqq qqqqqqqq qqqqq qqqqqqqqqq qqqqqqqqq qqqqqqqqqq qqqqqqq qqqqq qqqqqqqqqq qqqqqqqqq qqqqqqqqqq qqqqqq qq qqqqqq qqqqqqq qqqqq q qq qqqqqq qqqqqqq qqqq qqqqqqqqqq qq qqqqqq qqqqqqqqq qqqqq qqqqqqqqq qq qqqqqq qqqqqqqqq qqqqq qqqqqqqq qq qqq qqqqqqqqq qqq qqqqq qq qqq qqqqqqqqq qqq qqqq qq qqqq q qqqq qqq qq qqqq q qqqq qq'.split()
w = WORDS[5 * idx:5 * idx + 5]
show(int(''.join(str(len(x) - 1) for x in w)))
