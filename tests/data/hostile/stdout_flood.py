import sys
while True:
    sys.stdout.write("*" * 1_000_000)
