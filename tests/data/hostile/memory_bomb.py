# Ten gigabytes at once, then a list that grows until memory runs out.
try:
    x = bytearray(10 * 1024 ** 3)
    print("ESCAPED 10G")
except MemoryError:
    print("denied 10G MemoryError")
chunks = []
try:
    while True:
        chunks.append(bytearray(64 * 1024 ** 2))
except MemoryError:
    print("denied grow MemoryError", len(chunks))
