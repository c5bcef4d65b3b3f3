# Many threads with tiny stacks: RLIMIT_NPROC (64) must stop them even when kcomp is root.
import threading, time
threading.stack_size(64 * 1024)
stop = threading.Event()
started = 0
err = None
for i in range(400):
    try:
        threading.Thread(target=stop.wait, daemon=True).start()
        started += 1
    except Exception as e:
        err = type(e).__name__
        break
print("started", started, err, flush=True)
stop.set()
