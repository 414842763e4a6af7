//! TLS for `wss://` relays: which certificates the client trusts, and what it tells the player when a relay's
//! certificate is refused.
//!
//! The trust roots are Mozilla's, compiled in (webpki-roots), rather than the operating system's store: a
//! relay behind Caddy has a certificate from a public CA (Let's Encrypt or ZeroSSL), and compiled-in roots
//! verify it the same way on every machine, including minimal containers with no CA bundle installed. A
//! private relay (a club's, a test's) is trusted with `--ca FILE`, which adds that file's certificates to the
//! roots; nothing weakens verification (no "insecure" switch).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;
use rustls::{CertificateError, ClientConfig, RootCertStore};

/// Why the extra CA file cannot be used. Each message names the file.
#[derive(Debug, thiserror::Error)]
pub enum CaError {
    #[error("cannot read the CA file {path}: {reason}")]
    Read { path: String, reason: String },
    #[error("the CA file {path} holds no PEM certificate (-----BEGIN CERTIFICATE-----)")]
    Empty { path: String },
    #[error("the CA file {path} holds a certificate that cannot be used as a trust root: {reason}")]
    Unusable { path: String, reason: String },
}

/// The client's TLS configuration: the compiled-in public roots, plus every certificate of `ca` if given.
pub fn client_config(ca: Option<&Path>) -> Result<Arc<ClientConfig>, CaError> {
    let mut roots = RootCertStore { roots: webpki_roots::TLS_SERVER_ROOTS.to_vec() };
    if let Some(path) = ca {
        for certificate in read_certificates(path)? {
            roots
                .add(certificate)
                .map_err(|error| CaError::Unusable { path: shown(path), reason: error.to_string() })?;
        }
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .expect("ring supports the default protocol versions")
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(Arc::new(config))
}

fn read_certificates(path: &Path) -> Result<Vec<CertificateDer<'static>>, CaError> {
    let text = crate::file::read_at_most(path, crate::file::SETTINGS_BYTES)
        .map_err(|error| CaError::Read { path: shown(path), reason: error.to_string() })?;
    let certificates = CertificateDer::pem_slice_iter(&text)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|error| CaError::Unusable { path: shown(path), reason: error.to_string() })?;
    if certificates.is_empty() {
        return Err(CaError::Empty { path: shown(path) });
    }
    Ok(certificates)
}

fn shown(path: &Path) -> String {
    PathBuf::from(path).display().to_string()
}

/// A sentence for a failed connection when TLS refused the relay's certificate, naming the host; `None` for
/// any other failure.
pub(crate) fn explain_certificate_failure(error: &tokio_tungstenite::tungstenite::Error, host: &str) -> Option<String> {
    let tokio_tungstenite::tungstenite::Error::Io(io) = error else { return None };
    let rustls::Error::InvalidCertificate(problem) = io.get_ref()?.downcast_ref::<rustls::Error>()? else {
        return None;
    };
    let reason = match problem {
        CertificateError::UnknownIssuer => {
            "it is signed by an authority this client does not trust (for a private relay, pass --ca FILE with its CA)"
                .to_string()
        }
        CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. } => {
            format!("it is not valid for the name {host}")
        }
        CertificateError::Expired | CertificateError::ExpiredContext { .. } => "it has expired".to_string(),
        CertificateError::NotValidYet | CertificateError::NotValidYetContext { .. } => {
            "it is not valid yet (check this computer's clock)".to_string()
        }
        CertificateError::Revoked => "it has been revoked".to_string(),
        other => format!("{other:?}"),
    };
    Some(format!("the certificate of {host} was refused: {reason}"))
}
