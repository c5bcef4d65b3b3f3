# The PCFG SET interpreter (Hupkes et al., JAIR 2020): one input sequence on stdin, its
# meaning on stdout. kcomp's reference program: its l_bits is K(f) of the pcfgset family.
UNARY = {
    "copy": lambda x: x,
    "reverse": lambda x: x[::-1],
    "shift": lambda x: x[1:] + x[:1],
    "echo": lambda x: x + x[-1:],
    "swap_first_last": lambda x: x[-1:] + x[1:-1] + x[:1] if len(x) > 1 else x,
    "repeat": lambda x: x + x,
}
BINARY = {
    "append": lambda x, y: x + y,
    "prepend": lambda x, y: y + x,
    "remove_first": lambda x, y: y,
    "remove_second": lambda x, y: x,
}


def parse(tokens, i):
    name = tokens[i].removesuffix("_twin")
    if name in UNARY:
        x, i = parse(tokens, i + 1)
        return UNARY[name](x), i
    if name in BINARY:
        x, i = parse(tokens, i + 1)
        y, i = parse(tokens, i + 1)
        return BINARY[name](x, y), i
    j = i
    while j < len(tokens) and tokens[j] != ",":
        j += 1
    return tokens[i:j], j


print(" ".join(parse(input().split(), 0)[0]))
