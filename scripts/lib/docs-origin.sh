# Sourced by the benchmarks: serves the Python 3.11 documentation (python3.11-doc) from nginx on
# 127.0.0.1 — or the folder $docs names when it is set. Needs $work (a scratch folder, removed on
# exit). Sets $docs, $port and $origin.
# The same pages are also served under /copy1/ … /copy4/, for measurements that need a bigger site.
docs=${docs:-/usr/share/doc/python3.11/html}
source "$(dirname "${BASH_SOURCE[0]}")/free-port.sh"
port=$(free_port)
cat > "$work/nginx.conf" <<CONF
worker_processes 1;
pid $work/nginx.pid;
error_log $work/nginx-error.log;
events { worker_connections 1024; }
http {
  include /etc/nginx/mime.types;
  # The combined format and the time of the response in seconds since 1970, to the millisecond.
  log_format timed '\$remote_addr - \$remote_user [\$time_local] "\$request" \$status \$body_bytes_sent "\$http_referer" "\$http_user_agent" \$msec';
  access_log $work/access.log timed;
  sendfile on;
  server {
    listen 127.0.0.1:$port; root $docs; index index.html; etag on;
    location ~ ^/copy[1-4]/(.*)$ { alias $docs/\$1; }
  }
}
CONF
nginx -c "$work/nginx.conf"
trap 'nginx -c "$work/nginx.conf" -s stop 2>/dev/null; rm -rf "$work"' EXIT
origin="http://127.0.0.1:$port"
for _ in $(seq 50); do curl -sf "$origin/" >/dev/null 2>&1 && break; sleep 0.1; done
