// SPDX-License-Identifier: Apache-2.0
// OpenSSL's libcrypto, for the transfer plugin's --sha256 (EVP digests; libcurl links it anyway).
#include <openssl/evp.h>
