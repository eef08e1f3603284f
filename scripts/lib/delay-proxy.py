#!/usr/bin/env python3
"""A reverse proxy that answers every request DELAY seconds late, for the latency benchmark.

    delay-proxy.py LISTEN_PORT UPSTREAM_PORT DELAY PEAK_FILE

HTTP/1.1 with keep-alive, GET/HEAD without request bodies (what crawlers send), responses with
Content-Length (what nginx sends for static files); each client connection gets its own
upstream connection.  The most requests ever in flight at once is kept
in PEAK_FILE (rewritten whenever it grows), so the benchmark can report a crawler's parallelism.
"""
import asyncio
import signal
import sys

listen_port, upstream_port, delay, peak_file = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
in_flight = peak = 0


async def read_response(reader, head_only):
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    status = int(lines[0].split()[1])
    fields = {k.strip().lower(): v.strip() for k, _, v in (line.partition(b":") for line in lines[1:] if line)}
    if head_only or status in (204, 304) or 100 <= status < 200:
        return head
    return head + await reader.readexactly(int(fields.get(b"content-length", b"0")))


async def serve(client_reader, client_writer):
    global in_flight, peak
    upstream_reader, upstream_writer = await asyncio.open_connection("127.0.0.1", upstream_port)
    try:
        while True:
            request = await client_reader.readuntil(b"\r\n\r\n")
            in_flight += 1
            if in_flight > peak:
                peak = in_flight
                with open(peak_file, "w") as out:
                    out.write(f"{peak}\n")
            try:
                upstream_writer.write(request)
                response = await read_response(upstream_reader, request.startswith(b"HEAD "))
                await asyncio.sleep(delay)
            finally:
                in_flight -= 1
            client_writer.write(response)
            await client_writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError):
        pass
    finally:
        client_writer.close()
        upstream_writer.close()


def new_count():
    global peak
    peak = 0
    with open(peak_file, "w") as out:
        out.write("0\n")


async def main():
    new_count()
    asyncio.get_running_loop().add_signal_handler(signal.SIGUSR1, new_count)
    server = await asyncio.start_server(serve, "127.0.0.1", listen_port, limit=1 << 20)
    async with server:
        await server.serve_forever()

asyncio.run(main())
