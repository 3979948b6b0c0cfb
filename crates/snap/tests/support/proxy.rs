//! A failover in miniature: a TCP proxy on loopback that forwards every
//! connection to its current upstream server. [`Proxy::switch`] points
//! new connections at another server and cuts the open ones, as a
//! failover (a virtual IP moved, a DNS name repointed) does to a client:
//! its connection breaks, and connecting again reaches the other server
//! at the same address. Shared by `crates/snap/tests/servers.rs` (the
//! library) and `tests/snap.rs` (the binary).

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The proxy; it stops when dropped.
pub struct Proxy {
    /// The port it listens on (127.0.0.1).
    pub port: u16,
    upstream: Arc<Mutex<String>>,
    open: Arc<Mutex<Vec<TcpStream>>>,
    accepted: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
}

impl Proxy {
    /// Listens on a free port and forwards to `upstream` (`host:port`).
    pub fn start(upstream: &str) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let p = Proxy {
            port: listener.local_addr().unwrap().port(),
            upstream: Arc::new(Mutex::new(upstream.to_string())),
            open: Arc::default(),
            accepted: Arc::default(),
            stop: Arc::default(),
        };
        let (up, open, accepted, stop) = (
            p.upstream.clone(),
            p.open.clone(),
            p.accepted.clone(),
            p.stop.clone(),
        );
        std::thread::spawn(move || {
            for client in listener.incoming() {
                if stop.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(client) = client else { continue };
                let to = up.lock().unwrap().clone();
                let Ok(server) = TcpStream::connect(&to) else {
                    continue;
                };
                accepted.fetch_add(1, Ordering::SeqCst);
                let mut o = open.lock().unwrap();
                o.push(client.try_clone().unwrap());
                o.push(server.try_clone().unwrap());
                drop(o);
                pipe(client.try_clone().unwrap(), server.try_clone().unwrap());
                pipe(server, client);
            }
        });
        p
    }

    /// New connections go to `upstream`; the open ones are cut.
    pub fn switch(&self, upstream: &str) {
        *self.upstream.lock().unwrap() = upstream.to_string();
        for s in self.open.lock().unwrap().drain(..) {
            let _ = s.shutdown(Shutdown::Both);
        }
    }

    /// Waits (at most `limit`) until a client connected through it.
    pub fn wait_for_a_client(&self, limit: Duration) {
        let t = Instant::now();
        while self.accepted.load(Ordering::SeqCst) == 0 {
            assert!(t.elapsed() < limit, "no client connected within {limit:?}");
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// `url` (`scheme://user:pw@host:port/db`) through the proxy.
    pub fn url(&self, url: &str) -> String {
        let (head, rest) = url.split_once('@').unwrap();
        let (_, path) = rest.split_once('/').unwrap_or((rest, ""));
        format!("{head}@127.0.0.1:{}/{path}", self.port)
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wakes the accepting thread so that it sees the flag.
        let _ = TcpStream::connect(("127.0.0.1", self.port));
        self.switch("");
    }
}

/// `host:port` of `url`.
pub fn addr(url: &str) -> String {
    let rest = url.split_once('@').unwrap().1;
    rest.split('/').next().unwrap().to_string()
}

/// Copies `from` to `to` on a thread until either side closes.
fn pipe(mut from: TcpStream, mut to: TcpStream) {
    std::thread::spawn(move || {
        let mut buf = [0u8; 16 * 1024];
        while let Ok(n) = from.read(&mut buf) {
            if n == 0 || to.write_all(&buf[..n]).is_err() {
                break;
            }
        }
        let _ = to.shutdown(Shutdown::Both);
        let _ = from.shutdown(Shutdown::Both);
    });
}
