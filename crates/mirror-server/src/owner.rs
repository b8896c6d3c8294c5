//! Whether a connection comes from the server's owner: a process of the same user on this
//! machine, by the kernel's socket table (Linux's `/proc/net/tcp`, read with `procfs`).
//! The page served to its owner gets the write token from the server that served it
//! (`GET /api/v1/session`); another local user's page, or any other machine, does not.

use std::net::SocketAddr;

/// Why a connection is not known to be the owner's.
#[derive(Debug, thiserror::Error)]
pub enum NotOwner {
    /// From beyond this machine.
    #[error("the connection comes from {0}, beyond this machine")]
    Remote(std::net::IpAddr),
    /// From another user of this machine.
    #[error("the connection comes from another user of this machine (uid {peer}, not {owner})")]
    OtherUser {
        /// The connecting socket's user.
        peer: u32,
        /// The server's user.
        owner: u32,
    },
    /// The connection's socket is not in the kernel's table (it closed meanwhile).
    #[error("the connection from {0} is not in the kernel's socket table")]
    Unlisted(SocketAddr),
    /// The socket table cannot be read (not Linux, or `/proc` hidden).
    #[error("cannot read the kernel's socket table: {0}")]
    Unreadable(String),
}

/// `Ok` when the connection from `peer` (a client socket on this machine) belongs to the
/// user this server runs as.
pub fn check(peer: SocketAddr) -> Result<(), NotOwner> {
    if !peer.ip().is_loopback() && !is_mapped_loopback(peer) {
        return Err(NotOwner::Remote(peer.ip()));
    }
    let (found, owner) = socket_uid(peer)?;
    match found {
        None => Err(NotOwner::Unlisted(peer)),
        Some(uid) if uid == owner => Ok(()),
        Some(uid) => Err(NotOwner::OtherUser { peer: uid, owner }),
    }
}

/// `::ffff:127.0.0.1` (a dual-stack listener's view of an IPv4 loopback client).
fn is_mapped_loopback(peer: SocketAddr) -> bool {
    match peer.ip() {
        std::net::IpAddr::V6(v6) => v6.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback()),
        std::net::IpAddr::V4(_) => false,
    }
}

/// The uid owning the client socket whose own address is `peer`, and this process's uid.
#[cfg(target_os = "linux")]
fn socket_uid(peer: SocketAddr) -> Result<(Option<u32>, u32), NotOwner> {
    let unreadable = |e: procfs::ProcError| NotOwner::Unreadable(e.to_string());
    let owner = procfs::process::Process::myself()
        .and_then(|me| me.uid())
        .map_err(unreadable)?;
    // The client's socket: its local address is the peer the server sees. An IPv4 client
    // of a dual-stack listener is in the IPv4 table under its plain address.
    let plain = match peer.ip() {
        std::net::IpAddr::V6(v6) => v6
            .to_ipv4_mapped()
            .map_or(peer, |v4| SocketAddr::new(v4.into(), peer.port())),
        std::net::IpAddr::V4(_) => peer,
    };
    let table = if plain.is_ipv4() {
        procfs::net::tcp()
    } else {
        procfs::net::tcp6()
    }
    .map_err(unreadable)?;
    Ok((
        table
            .into_iter()
            .find(|e| e.local_address == plain)
            .map(|e| e.uid),
        owner,
    ))
}

/// Elsewhere the table is not read: no connection is known to be the owner's.
#[cfg(not(target_os = "linux"))]
fn socket_uid(_peer: SocketAddr) -> Result<(Option<u32>, u32), NotOwner> {
    Err(NotOwner::Unreadable(
        "only Linux's /proc/net/tcp is read".into(),
    ))
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn a_connection_of_this_process_is_the_owners_and_an_outside_one_is_not() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let client =
            std::net::TcpStream::connect(listener.local_addr().expect("addr")).expect("connect");
        let (_server_side, peer) = listener.accept().expect("accept");
        assert_eq!(peer, client.local_addr().expect("local"));
        check(peer).expect("this process's own connection");
        assert!(matches!(
            check("192.0.2.7:5000".parse().expect("addr")),
            Err(NotOwner::Remote(_))
        ));
        // A port no socket has.
        drop(client);
        let gone: SocketAddr = "127.0.0.1:1".parse().expect("addr");
        assert!(matches!(check(gone), Err(NotOwner::Unlisted(_))));
    }
}
