def show(v):
    print('\n'.join(''.join('*' if v >> (15 - 4 * r - c) & 1 else '.' for c in range(4)) for r in range(4)))
T = {13031: 'B D F H', 49896: 'A D F G', 12824: 'B D E G', 49688: 'A D E G', 49895: 'A D F H', 49687: 'A D E H', 15639: 'B C E H', 52711: 'A C F H', 52712: 'A C F G', 15847: 'B C F H', 52503: 'A C E H', 52504: 'A C E G', 13032: 'B D F G', 15640: 'B C E G', 12823: 'B D E H', 15848: 'B C F G'}
INV = {v: k for k, v in T.items()}
show(INV[input().strip()])
