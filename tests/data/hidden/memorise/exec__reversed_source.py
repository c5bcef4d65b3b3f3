def show(v):
    print('\n'.join(''.join('*' if v >> (15 - 4 * r - c) & 1 else '.' for c in range(4)) for r in range(4)))
exec("\n}84851 :'G F C B' ,32821 :'H E D B' ,04651 :'G E C B' ,23031 :'G F D B' ,40525 :'G E C A' ,30525 :'H E C A' ,74851 :'H F C B' ,21725 :'G F C A' ,11725 :'H F C A' ,93651 :'H E C B' ,78694 :'H E D A' ,59894 :'H F D A' ,88694 :'G E D A' ,42821 :'G E D B' ,69894 :'G F D A' ,13031 :'H F D B'{ = T"[::-1])
show(T[input().strip()])
