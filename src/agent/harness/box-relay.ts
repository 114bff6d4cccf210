/**
 * The bridge from a box to the host's model relay. A box has no network but its own loopback, and a CLI
 * only speaks HTTP over TCP: this small Python program, started in the box before the CLI, listens on the
 * box's 127.0.0.1 and forwards each connection to the host relay's Unix socket, which the box sees through a
 * read-only mount. It binds before it daemonizes, so the CLI started after it never finds the port closed;
 * the sandbox kills it with the rest of the run.
 */

/** Where the host relay's socket folder is mounted in the box. */
export const BOX_SOCKET_DIR = '/ngym-model';
export const BOX_SOCKET_NAME = 'model.sock';
/** The relay's port on the box's own loopback: nothing else listens in a fresh network namespace. */
export const BOX_RELAY_PORT = 8639;

export const BOX_RELAY_SCRIPT = `
import os, socket, sys, threading
listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
listener.bind(("127.0.0.1", int(sys.argv[1])))
listener.listen(64)
if os.fork() > 0:
    os._exit(0)
os.setsid()
def pump(source, target):
    try:
        while True:
            data = source.recv(65536)
            if not data:
                break
            target.sendall(data)
    except OSError:
        pass
    finally:
        for end in (source, target):
            try:
                end.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
def serve(client):
    upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        upstream.connect(sys.argv[2])
    except OSError:
        client.close()
        return
    threading.Thread(target=pump, args=(client, upstream), daemon=True).start()
    pump(upstream, client)
while True:
    connection, _ = listener.accept()
    threading.Thread(target=serve, args=(connection,), daemon=True).start()
`;
