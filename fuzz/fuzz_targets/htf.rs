//! `.htf` reader: never panics; a multitrace it returns partitions the signature's lifelines
//! and every action is on a lifeline of its component.
#![no_main]

#[path = "common.rs"]
mod common;

use libfuzzer_sys::fuzz_target;
use multitrace_formats::parse_htf;
use multitrace_model::signature::{LifelineSet, Signature};

fuzz_target!(|data: &[u8]| {
    let text = common::text(data);
    for sig in [common::signature(), Signature::new()] {
        match parse_htf("f.htf", &text, &sig) {
            Ok((mt, names)) => {
                assert_eq!(mt.components.len(), names.len());
                let mut seen = LifelineSet::EMPTY;
                for c in &mt.components {
                    assert!(!seen.intersects(c.lifelines));
                    seen = seen.union(c.lifelines);
                    for a in &c.trace {
                        assert!(c.lifelines.contains(a.lifeline));
                        assert!(a.message.index() < sig.messages().len());
                    }
                }
                assert_eq!(seen, sig.all_lifelines());
            }
            Err(e) => assert!(e.line >= 1 && e.column >= 1),
        }
    }
});
