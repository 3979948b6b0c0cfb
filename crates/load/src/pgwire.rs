//! The load sessions' PostgreSQL connection: the frontend/backend
//! protocol over a blocking socket, one write and (usually) one read per
//! statement.
//!
//! Why not the `postgres` crate here, as for the monitoring connection:
//! that crate is a blocking face over `tokio-postgres`, so every
//! statement goes through a current-thread runtime, a channel to the
//! connection task, two `epoll_wait`s, and several allocations. Measured
//! with `strace -c` and `perf` against `pgbench -M prepared` running the
//! same one-insert transaction (10 clients, PostgreSQL 15 on loopback),
//! that cost dbio 1.13–1.34× pgbench's client CPU per commit and
//! 0.88–0.94× its TPS. pgbench (libpq) makes four system calls per
//! transaction (`sendto`, `ppoll`, two `recvfrom`); this connection
//! makes two (`write`, a blocking `read`) and allocates nothing per
//! statement.
//!
//! The statements are the same as before and as pgbench's: prepared
//! once per session (`Parse`, then `Sync`: a transaction of its own),
//! then per statement one `Bind` (parameters in binary), `Execute` and
//! `Sync`, the extended query protocol that `pgbench -M prepared` uses.
//! The messages are built once; per insert only the 8 bytes of the id
//! change, in place. Every statement's reply is read up to
//! `ReadyForQuery`, and an insert counts only when its `CommandComplete`
//! says `INSERT 0 1`.
//!
//! Start-up follows the protocol chapter of the PostgreSQL
//! documentation ("Message Flow", "Start-up", "SSL Session
//! Encryption"): an `SSLRequest` when the target's sslmode asks for TLS
//! (rustls, the same unverified configuration as the monitoring
//! connection), the start-up parameters `tokio-postgres` sends
//! (`client_encoding`, `user`, `database`, `options`,
//! `application_name`), and the password methods `trust`, `password`,
//! `md5` and SCRAM-SHA-256 (without channel binding, as libpq with
//! `channel_binding=prefer` when the server offers no `-PLUS`
//! mechanism). Messages are encoded with `postgres-protocol`, the
//! encoder `tokio-postgres` itself uses, and MD5 and SCRAM are its.

use crate::backend::LoadError;
use bytes::BytesMut;
use postgres::config::{ChannelBinding, Host, SslMode};
use postgres::Config;
use postgres_protocol::authentication::{md5_hash, sasl};
use postgres_protocol::message::frontend;
use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::os::unix::net::UnixStream;
use std::sync::Arc;
use std::time::Duration;

/// A socket, plain or in TLS.
enum Stream {
    Tcp(TcpStream),
    Unix(UnixStream),
    Tls(Box<rustls::StreamOwned<rustls::ClientConnection, TcpStream>>),
}

impl Read for Stream {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self {
            Stream::Tcp(s) => s.read(buf),
            Stream::Unix(s) => s.read(buf),
            Stream::Tls(s) => s.read(buf),
        }
    }
}

impl Write for Stream {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Stream::Tcp(s) => s.write(buf),
            Stream::Unix(s) => s.write(buf),
            Stream::Tls(s) => s.write(buf),
        }
    }
    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Stream::Tcp(s) => s.flush(),
            Stream::Unix(s) => s.flush(),
            Stream::Tls(s) => s.flush(),
        }
    }
}

/// Why a connection could not be made: the server's or the OS's
/// sentence.
pub(crate) struct ConnectError(pub String);

/// What a statement's reply held, up to `ReadyForQuery`.
struct Reply {
    /// `CommandComplete` seen with the expected tag (when one was
    /// expected).
    tag_ok: bool,
}

/// A server error: its message and whether it ended the connection.
struct ServerError {
    message: String,
    lost: bool,
}

/// A blocking connection to one backend.
pub(crate) struct Wire {
    stream: Stream,
    /// Received bytes; `buf[start..end]` not yet consumed.
    buf: Vec<u8>,
    start: usize,
    end: usize,
    /// The backend's process id (`BackendKeyData`).
    pid: Option<u32>,
    /// The connection broke (I/O error, end of stream, a FATAL error):
    /// nothing more is sent.
    broken: bool,
}

/// A statement prepared on a [`Wire`]: its `Bind`/`Execute`/`Sync`
/// messages, built once.
pub(crate) struct Prepared {
    msg: Vec<u8>,
    /// Where the first parameter's 8 bytes are (an `int8` id), if any.
    id_at: Option<usize>,
    /// The `CommandComplete` tag that proves the statement did its work.
    tag: &'static [u8],
}

impl Prepared {
    /// Sets the `int8` first parameter (big-endian, binary format).
    fn set_id(&mut self, id: i64) {
        if let Some(at) = self.id_at {
            self.msg[at..at + 8].copy_from_slice(&id.to_be_bytes());
        }
    }
}

fn be32(v: usize) -> [u8; 4] {
    u32::try_from(v).unwrap_or(u32::MAX).to_be_bytes()
}

/// `Bind` (unnamed portal, all parameters binary, no result columns),
/// `Execute` (all rows) and `Sync` of statement `name` with `params`;
/// where the first parameter's bytes start.
fn bind_execute_sync(name: &str, params: &[&[u8]]) -> (Vec<u8>, Option<usize>) {
    let mut body = Vec::new();
    body.push(0); // unnamed portal
    body.extend_from_slice(name.as_bytes());
    body.push(0);
    body.extend_from_slice(&1i16.to_be_bytes()); // one format code for all
    body.extend_from_slice(&1i16.to_be_bytes()); // binary
    body.extend_from_slice(&(params.len() as i16).to_be_bytes());
    let mut first = None;
    for p in params {
        body.extend_from_slice(&be32(p.len()));
        first.get_or_insert(body.len());
        body.extend_from_slice(p);
    }
    body.extend_from_slice(&0i16.to_be_bytes()); // no result format codes
    let mut msg = Vec::with_capacity(body.len() + 24);
    msg.push(b'B');
    msg.extend_from_slice(&be32(body.len() + 4));
    let at = first.map(|f| f + msg.len());
    msg.extend_from_slice(&body);
    // Execute: unnamed portal, no row limit.
    msg.push(b'E');
    msg.extend_from_slice(&be32(4 + 1 + 4));
    msg.push(0);
    msg.extend_from_slice(&0i32.to_be_bytes());
    // Sync.
    msg.push(b'S');
    msg.extend_from_slice(&be32(4));
    (msg, at)
}

/// The fields of an `ErrorResponse`/`NoticeResponse` body: severity
/// (non-localised `V`, else `S`), SQLSTATE and message.
fn error_fields(body: &[u8]) -> (String, String, String) {
    let (mut sev, mut sev_v, mut code, mut msg) = (None, None, None, None);
    let mut rest = body;
    while let Some((&t, tail)) = rest.split_first() {
        if t == 0 {
            break;
        }
        let end = tail.iter().position(|&b| b == 0).unwrap_or(tail.len());
        let v = String::from_utf8_lossy(&tail[..end]).into_owned();
        match t {
            b'S' => sev = Some(v),
            b'V' => sev_v = Some(v),
            b'C' => code = Some(v),
            b'M' => msg = Some(v),
            _ => {}
        }
        rest = tail.get(end + 1..).unwrap_or(&[]);
    }
    (
        sev_v.or(sev).unwrap_or_default(),
        code.unwrap_or_default(),
        msg.unwrap_or_else(|| "the server reported an error without a message".into()),
    )
}

fn server_error(body: &[u8]) -> ServerError {
    let (severity, code, message) = error_fields(body);
    ServerError {
        lost: code.starts_with("57") || matches!(severity.as_str(), "FATAL" | "PANIC"),
        message,
    }
}

impl Wire {
    /// Connects to the first host of `config` that answers, negotiates
    /// TLS as its sslmode says (with `tls` when given), starts up as
    /// `app` with `options` (the start-up `options` parameter) and
    /// authenticates.
    pub(crate) fn connect(
        config: &Config,
        tls: Option<&Arc<rustls::ClientConfig>>,
        app: &str,
        options: Option<&str>,
    ) -> Result<Wire, ConnectError> {
        if config.get_channel_binding() == ChannelBinding::Require {
            return Err(ConnectError(
                "channel_binding=require is not supported by dbio's load sessions; use \
                 channel_binding=prefer or disable"
                    .into(),
            ));
        }
        let hosts = config.get_hosts();
        let ports = config.get_ports();
        let addrs = config.get_hostaddrs();
        let timeout = config.get_connect_timeout().copied();
        let mut last = ConnectError("no host to connect to".into());
        for (i, host) in hosts.iter().enumerate() {
            let port = ports
                .get(i)
                .or_else(|| ports.first())
                .copied()
                .unwrap_or(5432);
            let stream = match host {
                Host::Unix(dir) => {
                    let path = dir.join(format!(".s.PGSQL.{port}"));
                    UnixStream::connect(&path)
                        .map(Stream::Unix)
                        .map_err(|e| ConnectError(format!("{}: {e}", path.display())))
                }
                Host::Tcp(name) => tcp(name, addrs.get(i).copied(), port, timeout).map(Stream::Tcp),
            };
            let stream = match stream {
                Ok(s) => s,
                Err(e) => {
                    last = e;
                    continue;
                }
            };
            let server_name = match host {
                Host::Tcp(name) => Some(name.clone()),
                Host::Unix(_) => None,
            };
            let mut wire = Wire {
                stream,
                buf: vec![0; 8192],
                start: 0,
                end: 0,
                pid: None,
                broken: false,
            };
            // As tokio-postgres: the next host after any failure.
            match wire
                .negotiate_tls(config.get_ssl_mode(), tls, server_name)
                .and_then(|()| wire.start_up(config, app, options))
            {
                Ok(()) => return Ok(wire),
                Err(e) => last = e,
            }
        }
        Err(last)
    }

    fn negotiate_tls(
        &mut self,
        mode: SslMode,
        tls: Option<&Arc<rustls::ClientConfig>>,
        server_name: Option<String>,
    ) -> Result<(), ConnectError> {
        let Some(tls) = tls.filter(|_| mode != SslMode::Disable) else {
            return Ok(());
        };
        let mut buf = BytesMut::new();
        frontend::ssl_request(&mut buf);
        self.send(&buf).map_err(|e| ConnectError(e.message))?;
        let mut answer = [0u8];
        self.stream
            .read_exact(&mut answer)
            .map_err(|e| ConnectError(format!("reading the answer to the TLS request: {e}")))?;
        if answer[0] != b'S' {
            return match mode {
                SslMode::Require => Err(ConnectError("server does not support TLS".into())),
                _ => Ok(()),
            };
        }
        let (Stream::Tcp(tcp), Some(name)) = (&self.stream, server_name) else {
            return Err(ConnectError(
                "no hostname provided for TLS handshake".into(),
            ));
        };
        let name = rustls::pki_types::ServerName::try_from(name)
            .map_err(|e| ConnectError(format!("not a TLS server name: {e}")))?;
        let conn = rustls::ClientConnection::new(Arc::clone(tls), name)
            .map_err(|e| ConnectError(format!("cannot set up TLS: {e}")))?;
        let tcp = tcp
            .try_clone()
            .map_err(|e| ConnectError(format!("cannot set up TLS: {e}")))?;
        let mut s = rustls::StreamOwned::new(conn, tcp);
        while s.conn.is_handshaking() {
            s.conn
                .complete_io(&mut s.sock)
                .map_err(|e| ConnectError(format!("TLS handshake: {e}")))?;
        }
        self.stream = Stream::Tls(Box::new(s));
        Ok(())
    }

    fn start_up(
        &mut self,
        config: &Config,
        app: &str,
        options: Option<&str>,
    ) -> Result<(), ConnectError> {
        let user = config.get_user().unwrap_or("");
        let mut params = vec![("client_encoding", "UTF8"), ("user", user)];
        if let Some(db) = config.get_dbname() {
            params.push(("database", db));
        }
        if let Some(o) = options.filter(|o| !o.is_empty()) {
            params.push(("options", o));
        }
        params.push(("application_name", app));
        let mut buf = BytesMut::new();
        frontend::startup_message(params, &mut buf).map_err(|e| ConnectError(e.to_string()))?;
        self.send(&buf).map_err(|e| ConnectError(e.message))?;
        let password = config.get_password();
        let need_password = || {
            password.ok_or_else(|| {
                ConnectError(
                    "the server asks for a password and none was given (URL, PGPASSWORD or \
                     the password file)"
                        .into(),
                )
            })
        };
        let mut scram: Option<sasl::ScramSha256> = None;
        loop {
            let (tag, body) = self.next_message().map_err(|e| ConnectError(e.message))?;
            let mut out = BytesMut::new();
            match tag {
                b'R' => {
                    let kind = body
                        .get(..4)
                        .map(|b| i32::from_be_bytes([b[0], b[1], b[2], b[3]]))
                        .unwrap_or(-1);
                    let data = body.get(4..).unwrap_or(&[]).to_vec();
                    match kind {
                        0 => {}
                        3 => {
                            frontend::password_message(need_password()?, &mut out)
                                .map_err(|e| ConnectError(e.to_string()))?;
                        }
                        5 => {
                            let salt: [u8; 4] = data
                                .get(..4)
                                .and_then(|s| s.try_into().ok())
                                .ok_or_else(|| ConnectError("a malformed MD5 request".into()))?;
                            let hash = md5_hash(user.as_bytes(), need_password()?, salt);
                            frontend::password_message(hash.as_bytes(), &mut out)
                                .map_err(|e| ConnectError(e.to_string()))?;
                        }
                        10 => {
                            let offered = data
                                .split(|&b| b == 0)
                                .any(|m| m == sasl::SCRAM_SHA_256.as_bytes());
                            if !offered {
                                return Err(ConnectError(
                                    "the server offers no SASL mechanism dbio supports \
                                     (SCRAM-SHA-256)"
                                        .into(),
                                ));
                            }
                            let s = sasl::ScramSha256::new(
                                need_password()?,
                                sasl::ChannelBinding::unsupported(),
                            );
                            frontend::sasl_initial_response(
                                sasl::SCRAM_SHA_256,
                                s.message(),
                                &mut out,
                            )
                            .map_err(|e| ConnectError(e.to_string()))?;
                            scram = Some(s);
                        }
                        11 => {
                            let s = scram.as_mut().ok_or_else(|| {
                                ConnectError("an unexpected SASL continuation".into())
                            })?;
                            s.update(&data)
                                .map_err(|e| ConnectError(format!("SCRAM: {e}")))?;
                            frontend::sasl_response(s.message(), &mut out)
                                .map_err(|e| ConnectError(e.to_string()))?;
                        }
                        12 => {
                            let s = scram.as_mut().ok_or_else(|| {
                                ConnectError("an unexpected SASL final message".into())
                            })?;
                            s.finish(&data)
                                .map_err(|e| ConnectError(format!("SCRAM: {e}")))?;
                        }
                        k => {
                            return Err(ConnectError(format!(
                                "the server asks for an authentication method dbio does not \
                                 support (request {k}; supported: trust, password, md5, \
                                 scram-sha-256)"
                            )))
                        }
                    }
                }
                b'K' => {
                    self.pid = body
                        .get(..4)
                        .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]));
                }
                b'E' => return Err(ConnectError(server_error(&body).message)),
                b'Z' => return Ok(()),
                // ParameterStatus, NoticeResponse and the like.
                _ => {}
            }
            if !out.is_empty() {
                self.send(&out).map_err(|e| ConnectError(e.message))?;
            }
        }
    }

    /// The backend's process id.
    pub(crate) fn pid(&self) -> Option<u32> {
        self.pid
    }

    /// The connection is known to be broken.
    pub(crate) fn is_broken(&self) -> bool {
        self.broken
    }

    fn lost(&mut self, e: std::io::Error) -> ServerError {
        self.broken = true;
        ServerError {
            message: e.to_string(),
            lost: true,
        }
    }

    fn send(&mut self, bytes: &[u8]) -> Result<(), ServerError> {
        match self.stream.write_all(bytes) {
            Ok(()) => Ok(()),
            Err(e) => Err(self.lost(e)),
        }
    }

    /// Makes sure `buf[start..end]` holds at least `n` bytes, reading
    /// (and compacting or growing the buffer) as needed.
    fn fill(&mut self, n: usize) -> Result<(), ServerError> {
        while self.end - self.start < n {
            if self.start + n > self.buf.len() {
                self.buf.copy_within(self.start..self.end, 0);
                self.end -= self.start;
                self.start = 0;
                if n > self.buf.len() {
                    self.buf.resize(n.next_power_of_two(), 0);
                }
            }
            match self.stream.read(&mut self.buf[self.end..]) {
                Ok(0) => {
                    return Err(self.lost(std::io::Error::new(
                        std::io::ErrorKind::UnexpectedEof,
                        "the server closed the connection",
                    )))
                }
                Ok(k) => self.end += k,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(self.lost(e)),
            }
        }
        Ok(())
    }

    /// The next message's type and where its body is in `buf`; the
    /// message is consumed.
    fn next_frame(&mut self) -> Result<(u8, std::ops::Range<usize>), ServerError> {
        self.fill(5)?;
        let h = &self.buf[self.start..self.start + 5];
        let tag = h[0];
        let len = u32::from_be_bytes([h[1], h[2], h[3], h[4]]) as usize;
        if len < 4 {
            self.broken = true;
            return Err(ServerError {
                message: format!("a malformed message from the server (length {len})"),
                lost: true,
            });
        }
        self.fill(1 + len)?;
        let body = self.start + 5..self.start + 1 + len;
        self.start += 1 + len;
        if self.start == self.end {
            (self.start, self.end) = (0, 0);
        }
        Ok((tag, body))
    }

    /// The next message with its body copied (start-up and simple
    /// queries only, not the measured statements).
    fn next_message(&mut self) -> Result<(u8, Vec<u8>), ServerError> {
        let (tag, body) = self.next_frame()?;
        Ok((tag, self.buf[body].to_vec()))
    }

    /// Reads a statement's reply up to `ReadyForQuery`; the first error
    /// in it is the result. Allocates only for an error.
    fn reply(&mut self, want_tag: &[u8]) -> Result<Reply, ServerError> {
        let mut reply = Reply {
            tag_ok: want_tag.is_empty(),
        };
        let mut error: Option<ServerError> = None;
        loop {
            let (tag, body) = self.next_frame()?;
            match tag {
                b'C' => {
                    let b = &self.buf[body];
                    let text = b.strip_suffix(&[0]).unwrap_or(b);
                    reply.tag_ok |= text == want_tag;
                }
                b'E' => {
                    let e = server_error(&self.buf[body]);
                    if e.lost {
                        self.broken = true;
                        return Err(e);
                    }
                    error.get_or_insert(e);
                }
                b'Z' => break,
                _ => {}
            }
        }
        match error {
            Some(e) => Err(e),
            None => Ok(reply),
        }
    }

    /// Prepares `sql` as statement `name` with parameter types `types`
    /// (`Parse`, `Sync`: one transaction on the server) and builds its
    /// `Bind`/`Execute`/`Sync` with `params` (the first an `int8` id
    /// when `id_first`). `tag` is the `CommandComplete` tag that proves
    /// the statement did its work.
    pub(crate) fn prepare(
        &mut self,
        name: &str,
        sql: &str,
        types: &[u32],
        params: &[&[u8]],
        tag: &'static [u8],
    ) -> Result<Prepared, LoadError> {
        let mut buf = BytesMut::new();
        frontend::parse(name, sql, types.iter().copied(), &mut buf)
            .map_err(|e| LoadError::Sql(e.to_string()))?;
        frontend::sync(&mut buf);
        self.send(&buf).map_err(to_load)?;
        self.reply(b"").map_err(to_load)?;
        let (msg, id_at) = bind_execute_sync(name, params);
        Ok(Prepared {
            msg,
            id_at: if types.first() == Some(&INT8) {
                id_at
            } else {
                None
            },
            tag,
        })
    }

    /// Runs a prepared statement, with `id` as its `int8` first
    /// parameter where it has one. No allocation unless it fails.
    pub(crate) fn execute(&mut self, st: &mut Prepared, id: i64) -> Result<(), LoadError> {
        if self.broken {
            return Err(LoadError::Lost("the connection is closed".into()));
        }
        st.set_id(id);
        self.send(&st.msg).map_err(to_load)?;
        let r = self.reply(st.tag).map_err(to_load)?;
        if r.tag_ok {
            Ok(())
        } else {
            Err(LoadError::Sql(format!(
                "the server did not confirm the statement ({})",
                String::from_utf8_lossy(st.tag)
            )))
        }
    }

    /// A simple query; its rows as text.
    pub(crate) fn simple_query(
        &mut self,
        sql: &str,
    ) -> Result<Vec<Vec<Option<String>>>, LoadError> {
        if self.broken {
            return Err(LoadError::Lost("the connection is closed".into()));
        }
        let mut buf = BytesMut::new();
        frontend::query(sql, &mut buf).map_err(|e| LoadError::Sql(e.to_string()))?;
        self.send(&buf).map_err(to_load)?;
        let mut rows = Vec::new();
        let mut error = None;
        loop {
            let (tag, body) = self.next_message().map_err(to_load)?;
            match tag {
                b'D' => rows.push(data_row(&body)),
                b'E' => {
                    let e = server_error(&body);
                    if e.lost {
                        self.broken = true;
                        return Err(to_load(e));
                    }
                    error.get_or_insert(e);
                }
                b'Z' => break,
                _ => {}
            }
        }
        match error {
            Some(e) => Err(to_load(e)),
            None => Ok(rows),
        }
    }

    /// Says goodbye (`Terminate`), best effort.
    pub(crate) fn terminate(&mut self) {
        if !self.broken {
            let mut buf = BytesMut::new();
            frontend::terminate(&mut buf);
            let _ = self.stream.write_all(&buf);
            self.broken = true;
        }
    }
}

/// The `int8` type's OID.
pub(crate) const INT8: u32 = 20;
/// The `text` type's OID.
pub(crate) const TEXT: u32 = 25;

/// A `DataRow`'s columns as text.
fn data_row(body: &[u8]) -> Vec<Option<String>> {
    let n = body
        .get(..2)
        .map(|b| i16::from_be_bytes([b[0], b[1]]))
        .unwrap_or(0);
    let mut out = Vec::with_capacity(n.max(0) as usize);
    let mut at = 2usize;
    for _ in 0..n {
        let Some(l) = body.get(at..at + 4) else { break };
        let len = i32::from_be_bytes([l[0], l[1], l[2], l[3]]);
        at += 4;
        if len < 0 {
            out.push(None);
            continue;
        }
        let end = (at + len as usize).min(body.len());
        out.push(Some(String::from_utf8_lossy(&body[at..end]).into_owned()));
        at = end;
    }
    out
}

fn to_load(e: ServerError) -> LoadError {
    if e.lost {
        LoadError::Lost(e.message)
    } else {
        LoadError::Sql(e.message)
    }
}

/// A TCP connection to `name` (or `addr`, libpq's `hostaddr`) on `port`,
/// each resolved address tried in turn; no Nagle delay (a statement is
/// one write), keep-alive on as libpq's default.
fn tcp(
    name: &str,
    addr: Option<std::net::IpAddr>,
    port: u16,
    timeout: Option<Duration>,
) -> Result<TcpStream, ConnectError> {
    let addrs: Vec<std::net::SocketAddr> = match addr {
        Some(ip) => vec![(ip, port).into()],
        None => (name, port)
            .to_socket_addrs()
            .map_err(|e| ConnectError(format!("cannot resolve {name}: {e}")))?
            .collect(),
    };
    let mut last = ConnectError(format!("{name} has no address"));
    for a in addrs {
        let r = match timeout {
            Some(t) => TcpStream::connect_timeout(&a, t),
            None => TcpStream::connect(a),
        };
        match r {
            Ok(s) => {
                let _ = s.set_nodelay(true);
                keepalive(&s);
                return Ok(s);
            }
            Err(e) => last = ConnectError(format!("{a}: {e}")),
        }
    }
    Err(last)
}

fn keepalive(s: &TcpStream) {
    use std::os::fd::AsRawFd;
    let on: libc::c_int = 1;
    // SAFETY: a valid socket descriptor and a c_int option value of the
    // size given.
    unsafe {
        libc::setsockopt(
            s.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_KEEPALIVE,
            (&on as *const libc::c_int).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bind_messages_carry_the_id_where_it_is_patched() {
        let pad = b"xyz";
        let (msg, at) = bind_execute_sync("ins", &[&0i64.to_be_bytes(), pad]);
        let mut p = Prepared {
            msg,
            id_at: at,
            tag: b"INSERT 0 1",
        };
        p.set_id(0x0102_0304_0506_0708);
        let m = &p.msg;
        assert_eq!(m[0], b'B');
        let blen = u32::from_be_bytes([m[1], m[2], m[3], m[4]]) as usize;
        // portal "", statement "ins", formats (1: binary), 2 params.
        assert_eq!(&m[5..14], b"\0ins\0\0\x01\0\x01");
        assert_eq!(&m[14..16], &[0, 2]);
        assert_eq!(&m[16..20], &8u32.to_be_bytes());
        assert_eq!(&m[20..28], &[1, 2, 3, 4, 5, 6, 7, 8]);
        assert_eq!(&m[28..32], &3u32.to_be_bytes());
        assert_eq!(&m[32..35], pad);
        assert_eq!(&m[35..37], &[0, 0]);
        assert_eq!(1 + blen, 37);
        assert_eq!(&m[37..], b"E\0\0\0\x09\0\0\0\0\0S\0\0\0\x04");
    }

    /// A wire whose server is the other end of a socket pair.
    fn pair() -> (Wire, UnixStream) {
        let (a, b) = UnixStream::pair().unwrap();
        let w = Wire {
            stream: Stream::Unix(a),
            // Small, so that replies straddle reads and the buffer grows.
            buf: vec![0; 8],
            start: 0,
            end: 0,
            pid: None,
            broken: false,
        };
        (w, b)
    }

    fn msg(tag: u8, body: &[u8]) -> Vec<u8> {
        let mut m = vec![tag];
        m.extend_from_slice(&be32(body.len() + 4));
        m.extend_from_slice(body);
        m
    }

    fn insert() -> Prepared {
        let (m, at) = bind_execute_sync("ins", &[&0i64.to_be_bytes(), b"x"]);
        Prepared {
            msg: m,
            id_at: at,
            tag: b"INSERT 0 1",
        }
    }

    /// Reads what the wire sent (one Bind/Execute/Sync) and answers.
    fn answer(server: &mut UnixStream, sent: usize, reply: &[u8]) -> Vec<u8> {
        let mut got = vec![0; sent];
        server.read_exact(&mut got).unwrap();
        server.write_all(reply).unwrap();
        got
    }

    #[test]
    fn an_insert_counts_only_when_the_server_confirms_one_row() {
        let (mut w, mut server) = pair();
        let mut st = insert();
        let n = st.msg.len();
        let ok = [
            msg(b'2', b""),
            msg(b'S', b"application_name\0x\0"),
            msg(b'C', b"INSERT 0 1\0"),
            msg(b'Z', b"I"),
        ]
        .concat();
        let t = std::thread::spawn(move || {
            let sent = answer(&mut server, n, &ok);
            // An insert that inserted nothing is not a commit of a row.
            answer(
                &mut server,
                n,
                &[msg(b'C', b"INSERT 0 0\0"), msg(b'Z', b"I")].concat(),
            );
            // A failed statement, the connection still usable.
            answer(
                &mut server,
                n,
                &[
                    msg(b'E', b"SERROR\0VERROR\0C23505\0Mduplicate key\0\0"),
                    msg(b'Z', b"I"),
                ]
                .concat(),
            );
            // The backend terminated: FATAL, then the end of the stream.
            answer(
                &mut server,
                n,
                &msg(
                    b'E',
                    b"SFATAL\0VFATAL\0C57P01\0Mterminating connection due to administrator command\0\0",
                ),
            );
            sent
        });
        w.execute(&mut st, 0x0102_0304_0506_0708).unwrap();
        let e = w.execute(&mut st, 2).unwrap_err();
        assert!(
            matches!(e, LoadError::Sql(ref m) if m.contains("INSERT 0 1")),
            "{e}"
        );
        let e = w.execute(&mut st, 3).unwrap_err();
        assert!(
            matches!(e, LoadError::Sql(ref m) if m == "duplicate key"),
            "{e}"
        );
        let e = w.execute(&mut st, 4).unwrap_err();
        assert!(
            matches!(e, LoadError::Lost(ref m) if m.contains("terminating")),
            "{e}"
        );
        assert!(w.is_broken());
        let e = w.execute(&mut st, 5).unwrap_err();
        assert!(matches!(e, LoadError::Lost(_)), "{e}");
        let sent = t.join().unwrap();
        assert_eq!(sent[0], b'B');
        assert!(sent.windows(8).any(|x| x == [1, 2, 3, 4, 5, 6, 7, 8]));
    }

    #[test]
    fn a_closed_connection_is_lost_not_a_hang() {
        let (mut w, server) = pair();
        drop(server);
        let e = w.execute(&mut insert(), 1).unwrap_err();
        assert!(matches!(e, LoadError::Lost(_)), "{e}");
    }

    #[test]
    fn error_fields_prefer_the_unlocalised_severity() {
        let body = b"SFATAL\0VFATAL\0C57P01\0Mterminating connection\0\0";
        let e = server_error(body);
        assert!(e.lost);
        assert_eq!(e.message, "terminating connection");
        let e = server_error(b"SERREUR\0VERROR\0C23505\0Mduplicate key\0\0");
        assert!(!e.lost);
        assert_eq!(e.message, "duplicate key");
    }

    #[test]
    fn data_rows_read_nulls_and_text() {
        let mut b = vec![0, 2];
        b.extend_from_slice(&(-1i32).to_be_bytes());
        b.extend_from_slice(&2i32.to_be_bytes());
        b.extend_from_slice(b"42");
        assert_eq!(data_row(&b), vec![None, Some("42".to_string())]);
    }
}
