// SPDX-License-Identifier: Apache-2.0
import Testing
@Test func placeholder() {}
