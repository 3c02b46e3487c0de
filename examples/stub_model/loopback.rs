//! Brings the loopback interface up: a fresh network namespace (`unshare -n`)
//! starts with `lo` down, and the stub and the CLI under test talk over it.
//! Doing it here (one ioctl) spares the harness a dependency on iproute2.

use std::io;

/// `struct ifreq` as far as `SIOCGIFFLAGS`/`SIOCSIFFLAGS` use it (Linux layout:
/// 16-byte name, then a 24-byte union of which the flags are the first field).
#[repr(C)]
struct InterfaceRequest {
    name: [libc::c_char; libc::IFNAMSIZ],
    flags: libc::c_short,
    _rest: [u8; 22],
}

/// Sets `IFF_UP` on `lo` in the current network namespace.
pub fn bring_up() -> io::Result<()> {
    // SAFETY: plain socket(2) call; the descriptor is closed below.
    let socket = unsafe { libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0) };
    if socket < 0 {
        return Err(io::Error::last_os_error());
    }
    let mut request = InterfaceRequest {
        name: [0; libc::IFNAMSIZ],
        flags: 0,
        _rest: [0; 22],
    };
    for (slot, byte) in request.name.iter_mut().zip(b"lo") {
        *slot = *byte as libc::c_char;
    }
    // SAFETY: `request` is a valid, writable ifreq-sized buffer for both ioctls.
    let result = unsafe {
        if libc::ioctl(socket, libc::SIOCGIFFLAGS as _, &mut request) < 0 {
            Err(io::Error::last_os_error())
        } else {
            request.flags |= (libc::IFF_UP | libc::IFF_RUNNING) as libc::c_short;
            if libc::ioctl(socket, libc::SIOCSIFFLAGS as _, &mut request) < 0 {
                Err(io::Error::last_os_error())
            } else {
                Ok(())
            }
        }
    };
    // SAFETY: closing the descriptor opened above.
    unsafe { libc::close(socket) };
    result
}
