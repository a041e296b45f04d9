"""A symbol server for tests, on 127.0.0.1 and a free port: serves a local
Breakpad store (NAME/ID/NAME.sym, NAME/BUILD_ID/NAME) the way Tecken does,
and misbehaves on request. The first path component picks the behaviour:

    /ok/REST       the file STORE/REST, else 404
    /gz/REST       only STORE/REST.sym gzipped, as REST.sym.gz (NAME.sym: 404)
    /missing/REST  404 for everything
    /stall/REST    reads the request and never answers
    /html/REST     200 with an HTML page (a proxy's error page)
    /random/REST   200 with random bytes
    /redirect/REST 302 to /ok/REST (Tecken sends its storage's URL)
    /bomb/REST     NAME.sym.gz: a valid MODULE line, then zeros past every
                   inflation limit, in a small gzip; NAME.sym: 404
    /away/REST     302 to server.away_base + /ok/REST (another origin)
    /busy/REST     503 with Retry-After: 1 the first time a path is asked,
                   then as /ok/
    /down503/REST  503 for everything

Every request is counted (server.requests: a list of paths), with its
headers (server.headers: (path, {lower-case name: value}) pairs).
"""
import gzip
import http.server
import io
import os
import threading


def gzip_zeros(inflated_mb):
    """inflated_mb MiB of zeros as one gzip member (about 1 KiB per MiB)."""
    out = io.BytesIO()
    with gzip.GzipFile(fileobj=out, mode='wb', compresslevel=9, mtime=0) as g:
        zeros = bytes(1 << 20)
        for _ in range(inflated_mb):
            g.write(zeros)
    return out.getvalue()


class SymbolServer:
    def __init__(self, store):
        self.store = store
        self.requests = []
        self.headers = []
        self.away_base = None   # another server's http://127.0.0.1:PORT
        self.busy_seen = set()
        self.active = 0         # 'slow' requests being answered
        self.max_active = 0
        # A gzip bomb: a member holding a valid MODULE line, then this one.
        self.zeros = gzip_zeros(200)
        self.lock = threading.Lock()
        self.stop = threading.Event()
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = 'HTTP/1.1'

            def log_message(self, *args):
                pass

            def answer(self, code, body, ctype='application/octet-stream'):
                self.send_response(code)
                self.send_header('Content-Type', ctype)
                self.send_header('Content-Length', str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self):
                with outer.lock:
                    outer.requests.append(self.path)
                    outer.headers.append((self.path, {k.lower(): v for k, v in self.headers.items()}))
                parts = self.path.lstrip('/').split('/', 1)
                mode, rest = parts[0], parts[1] if len(parts) > 1 else ''
                local = os.path.join(outer.store, *rest.split('/'))
                if mode == 'slow':
                    # Answers as 'ok' after 0.4 s, counting the requests
                    # it holds at once (max_active).
                    with outer.lock:
                        outer.active += 1
                        outer.max_active = max(outer.max_active, outer.active)
                    outer.stop.wait(0.4)
                    with outer.lock:
                        outer.active -= 1
                    mode = 'ok'
                if mode == 'busy':
                    with outer.lock:
                        first = rest not in outer.busy_seen
                        outer.busy_seen.add(rest)
                    if first:
                        self.send_response(503)
                        self.send_header('Retry-After', '1')
                        self.send_header('Content-Length', '0')
                        self.end_headers()
                        return
                    mode = 'ok'
                if mode == 'down503':
                    return self.answer(503, b'busy\n', 'text/plain')
                if mode == 'away':
                    self.send_response(302)
                    self.send_header('Location', outer.away_base + '/ok/' + rest)
                    self.send_header('Content-Length', '0')
                    self.end_headers()
                    return
                if mode == 'stall':
                    outer.stop.wait(600)
                    return
                if mode == 'ok' and os.path.isfile(local) and '..' not in rest:
                    with open(local, 'rb') as f:
                        return self.answer(200, f.read())
                if mode == 'gz' and rest.endswith('.sym.gz') and os.path.isfile(local[:-3]):
                    with open(local[:-3], 'rb') as f:
                        return self.answer(200, gzip.compress(f.read()))
                if mode == 'redirect':
                    self.send_response(302)
                    self.send_header('Location', '/ok/' + rest)
                    self.send_header('Content-Length', '0')
                    self.end_headers()
                    return
                if mode == 'html':
                    return self.answer(200, b'<!DOCTYPE html><html><body>Sign in</body></html>\n',
                                       'text/html')
                if mode == 'random':
                    return self.answer(200, os.urandom(3000))
                if mode == 'bomb' and rest.endswith('.sym.gz'):
                    name, debug_id = rest.split('/')[0], rest.split('/')[1]
                    line = 'MODULE windows x86 %s %s' % (debug_id, name)
                    return self.answer(200, gzip.compress(line.encode() + b'\n') + outer.zeros)
                self.answer(404, b'not found\n', 'text/plain')

        class Server(http.server.ThreadingHTTPServer):
            daemon_threads = True

            def handle_error(self, request, client_address):
                pass  # a client that gave up (a timeout, a refused bomb)

        self.httpd = Server(('127.0.0.1', 0), Handler)
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def url(self, mode):
        return 'http://127.0.0.1:%d/%s' % (self.port, mode)

    def headers_of(self, mode):
        """The headers of the requests made to /mode/."""
        with self.lock:
            return [h for p, h in self.headers if p.startswith('/' + mode + '/')]

    def count(self, mode=None):
        with self.lock:
            return sum(1 for p in self.requests if mode is None or p.startswith('/' + mode + '/'))

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.httpd.shutdown()
        self.httpd.server_close()
