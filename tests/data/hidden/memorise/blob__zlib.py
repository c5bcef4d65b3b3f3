s = input().split()
idx = sum((ord(c[0]) - 65) % 2 << (3 - i) for i, c in enumerate(s))
def show(v):
    print('\n'.join(''.join('*' if v >> (15 - 4 * r - c) & 1 else '.' for c in range(4)) for r in range(4)))
import zlib
R = zlib.decompress(b'x\x9c\x05\xc11\x01\x00\x00\x10\x01\xc0\x18\xe4\xb0\x7fy\xbb\x1c\xc4\xf8\xbb0\xc8R\xd3\xf0\xdc\xe3\xe1v\x15\x05M}\x1f\x8f\x0f\xf1')
show(R[2 * idx] << 8 | R[2 * idx + 1])
