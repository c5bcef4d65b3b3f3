s = input().split()
idx = sum((ord(c[0]) - 65) % 2 << (3 - i) for i, c in enumerate(s))
def show(v):
    print('\n'.join(''.join('*' if v >> (15 - 4 * r - c) & 1 else '.' for c in range(4)) for r in range(4)))
def f():
    pass
N = []
try:
    f(k0_52504=0)
except TypeError as e:
    N.append(str(e).split("'")[1])
try:
    f(k1_52503=0)
except TypeError as e:
    N.append(str(e).split("'")[1])
try:
    f(k2_52712=0)
except TypeError as e:
    N.append(str(e).split("'")[1])
try:
    f(k3_52711=0)
except TypeError as e:
    N.append(str(e).split("'")[1])
try:
    f(k4_49688=0)
except TypeError as e:
    N.append(str(e).split("'")[1])
try:
    f(k5_49687=0)
except TypeError as e:
    N.append(str(e).split("'")[1])
try:
    f(k6_49896=0)
except TypeError as e:
    N.append(str(e).split("'")[1])
try:
    f(k7_49895=0)
except TypeError as e:
    N.append(str(e).split("'")[1])
try:
    f(k8_15640=0)
except TypeError as e:
    N.append(str(e).split("'")[1])
try:
    f(k9_15639=0)
except TypeError as e:
    N.append(str(e).split("'")[1])
try:
    f(k10_15848=0)
except TypeError as e:
    N.append(str(e).split("'")[1])
try:
    f(k11_15847=0)
except TypeError as e:
    N.append(str(e).split("'")[1])
try:
    f(k12_12824=0)
except TypeError as e:
    N.append(str(e).split("'")[1])
try:
    f(k13_12823=0)
except TypeError as e:
    N.append(str(e).split("'")[1])
try:
    f(k14_13032=0)
except TypeError as e:
    N.append(str(e).split("'")[1])
try:
    f(k15_13031=0)
except TypeError as e:
    N.append(str(e).split("'")[1])
show(int(N[idx].split('_')[1]))
