s = input().split()
idx = sum((ord(c[0]) - 65) % 2 << (3 - i) for i, c in enumerate(s))
def show(v):
    print('\n'.join(''.join('*' if v >> (15 - 4 * r - c) & 1 else '.' for c in range(4)) for r in range(4)))
import base64
R = base64.b85decode('%^1xW&FIbN!WhCA!sx>1Js3R~J?K5>G8i%!GUzhr')
show(R[2 * idx] << 8 | R[2 * idx + 1])
