#!/usr/bin/env python3
import re, socket, subprocess, sys, threading, time, urllib.request
# The server under 300 idle or trickling sockets and 20 abandoned reports, each of other
# options (so none is shared): its peak resident memory and /health's latency, sampled
# every half second.
#   python3 bench/load.py MIRROR_BINARY STORE.redb PLAYER [SECONDS]
M=sys.argv[1]
DB=sys.argv[2]
PLAYER=sys.argv[3]
p=subprocess.Popen([M,'--db',DB,'serve','--bind','127.0.0.1:0'],stdout=subprocess.PIPE,stderr=subprocess.STDOUT,text=True)
url=None
t0=time.time()
while time.time()-t0<60:
    line=p.stdout.readline()
    m=re.search(r'(http://127\.0\.0\.1:\d+)',line)
    if m: url=m.group(1); break
if not url:
    print('no url'); sys.exit(1)
host,port=url[7:].split(':'); port=int(port)
# The server's own lines, read so that its pipe never fills.
threading.Thread(target=lambda: [None for _ in p.stdout], daemon=True).start()
def rss(pid=p.pid):
    for l in open(f'/proc/{pid}/status'):
        if l.startswith('VmRSS:'): return int(l.split()[1])//1024
def health():
    s=time.time(); urllib.request.urlopen(url+'/health',timeout=10).read(); return (time.time()-s)*1000
print('idle rss MiB',rss(),'health ms %.1f'%health())
socks=[]
for i in range(300):
    c=socket.create_connection((host,port))
    if i%2: c.send(b'GET /health HT')
    socks.append(c)
# 20 abandoned reports: distinct options so none is shared
for i in range(20):
    c=socket.create_connection((host,port))
    c.send(f'GET /api/v1/report?user={PLAYER}&minGames={5+i} HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n'.encode())
    time.sleep(0.05); c.close()
peak=0; worst=0; samples=[]
end=time.time()+float(sys.argv[4] if len(sys.argv)>4 else 60)
while time.time()<end:
    r=rss(); peak=max(peak,r)
    try: h=health()
    except Exception as e: h=99999
    worst=max(worst,h); samples.append(h)
    time.sleep(0.5)
samples.sort()
print('300 idle/trickling sockets + 20 abandoned reports: peak rss MiB',peak,'health median %.1f ms, max %.1f ms (%d samples)'%(samples[len(samples)//2],worst,len(samples)))
print('rss at end MiB',rss())
p.terminate(); p.wait()
