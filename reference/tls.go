package reference

import "crypto/tls"

// AEADCipherSuites returns the TLS 1.2 cipher suites the server offers:
// ECDHE key exchange with an AEAD cipher only (no CBC, no SHA-1 MAC, no RSA
// key exchange). TLS 1.3 suites are not configurable and are all AEAD.
func AEADCipherSuites() []uint16 {
	return []uint16{
		tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
		tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
		tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
		tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
		tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
		tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
	}
}

// HardenTLS returns a copy of conf (an empty one when nil) that accepts TLS
// 1.2 at least and, for TLS 1.2, only the AEADCipherSuites.
func HardenTLS(conf *tls.Config) *tls.Config {
	if conf == nil {
		conf = &tls.Config{}
	}
	conf = conf.Clone()
	conf.MinVersion = max(conf.MinVersion, tls.VersionTLS12)
	conf.CipherSuites = AEADCipherSuites()
	return conf
}

// CertOrg and CertName name the subject of the reference server's
// self-signed certificate.
const (
	CertOrg  = "chatref"
	CertName = "chatref self-signed"
)
