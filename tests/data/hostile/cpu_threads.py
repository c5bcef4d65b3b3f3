# Busy threads plus a busy main thread: stopped at the time limit.
import threading
def spin():
    while True:
        pass
for _ in range(8):
    threading.Thread(target=spin, daemon=True).start()
spin()
