// SPDX-License-Identifier: Apache-2.0
import Testing
import TransferCore

struct ResumePlanTests {
    let etag = Validator.etag("\"6b0e-2faf080\"")

    @Test func aPartFileWithACheckpointedValidatorResumesFromItsSizeOnDisk() {
        let checkpoint = TransferCheckpoint(offset: 1000, validator: etag)
        #expect(ResumePlan.decide(partSize: 1500, checkpoint: checkpoint) == .resume(offset: 1500, ifRange: etag))
    }

    @Test func withoutAValidatorOrBytesOnDiskItStartsFromZero() {
        #expect(ResumePlan.decide(partSize: 1500, checkpoint: nil) == .fresh)
        #expect(ResumePlan.decide(partSize: 1500, checkpoint: TransferCheckpoint(offset: 9, validator: nil)) == .fresh)
        #expect(ResumePlan.decide(partSize: 0, checkpoint: TransferCheckpoint(offset: 9, validator: etag)) == .fresh)
        #expect(ResumePlan.decide(partSize: nil, checkpoint: TransferCheckpoint(offset: 9, validator: etag)) == .fresh)
    }

    @Test func a206ForTheRangeAskedForIsAppended() {
        let plan = ResumePlan.resume(offset: 1500, ifRange: etag)
        #expect(BodyPlacement.decide(plan: plan, status: 206, contentRange: "bytes 1500-9999/10000") == .append(at: 1500))
    }

    @Test func a200ToARangeRequestMeansTheFileChangedAndRestartsFromZero() {
        let plan = ResumePlan.resume(offset: 1500, ifRange: etag)
        #expect(BodyPlacement.decide(plan: plan, status: 200, contentRange: nil) == .restart)
        #expect(BodyPlacement.decide(plan: .fresh, status: 200, contentRange: nil) == .restart)
    }

    @Test func a206ForAnotherRangeIsNeverSpliced() {
        let plan = ResumePlan.resume(offset: 1500, ifRange: etag)
        for range in ["bytes 0-9999/10000", "bytes */10000", "garbage", nil] as [String?] {
            guard case .unexpected = BodyPlacement.decide(plan: plan, status: 206, contentRange: range) else {
                Issue.record("206 with \(range ?? "nil") was accepted")
                continue
            }
        }
        guard case .unexpected = BodyPlacement.decide(plan: .fresh, status: 206, contentRange: "bytes 0-9/10") else {
            Issue.record("an unasked-for 206 was accepted")
            return
        }
    }

    @Test func theTotalComesFromContentRange() {
        #expect(ContentRange.total("bytes 1500-9999/10000") == 10000)
        #expect(ContentRange.total("bytes 1500-9999/*") == nil)
    }
}

struct TransferCheckpointTests {
    @Test func aCheckpointRoundTripsWithEitherValidator() {
        for validator in [Validator.etag("\"a b\""), .lastModified("Tue, 01 Dec 2026 12:00:00 GMT"), nil] {
            let checkpoint = TransferCheckpoint(offset: 8_388_608, validator: validator)
            #expect(TransferCheckpoint.decode(checkpoint.encoded) == checkpoint)
        }
    }

    @Test func anotherPluginsCheckpointIsNotMistakenForOne() {
        #expect(TransferCheckpoint.decode("batch-17") == nil)
        #expect(TransferCheckpoint.decode("transfer/1 -5 etag x") == nil)
        #expect(TransferCheckpoint.decode("transfer/2 5 etag x") == nil)
    }

    @Test func aValidatorTooLongForTheAgentsLimitIsLeftOut() {
        let checkpoint = TransferCheckpoint(offset: 1, validator: .etag(String(repeating: "x", count: 2000)))
        #expect(checkpoint.encoded == "transfer/1 1")
        #expect(checkpoint.encoded.utf8.count <= 1024)
        #expect(!checkpoint.resumable)
    }

    @Test func onlyACheckpointCarryingAValidatorIsResumable() {
        #expect(TransferCheckpoint(offset: 10, validator: .etag("\"v1\"")).resumable)
        #expect(TransferCheckpoint(offset: 10, validator: .lastModified("Tue, 01 Dec 2026 12:00:00 GMT")).resumable)
        #expect(!TransferCheckpoint(offset: 10, validator: nil).resumable)
    }

    @Test func aWeakETagCannotBeUsedInIfRangeSoLastModifiedIs() {
        #expect(Validator.of(etag: "W/\"x\"", lastModified: "Tue, 01 Dec 2026 12:00:00 GMT")
                == .lastModified("Tue, 01 Dec 2026 12:00:00 GMT"))
        #expect(Validator.of(etag: " \"x\"\r\n", lastModified: nil) == .etag("\"x\""))
        #expect(Validator.of(etag: nil, lastModified: nil) == nil)
    }
}
