s = input().split()
idx = sum((ord(c[0]) - 65) % 2 << (3 - i) for i, c in enumerate(s))
def show(v):
    print('\n'.join(''.join('*' if v >> (15 - 4 * r - c) & 1 else '.' for c in range(4)) for r in range(4)))
import base64
R = base64.b64decode('zRjNF83ozefCGMIXwujC5z0YPRc96D3nMhgyFzLoMuc=')
show(R[2 * idx] << 8 | R[2 * idx + 1])
