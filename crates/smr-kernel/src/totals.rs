//! `totals!`: a system's running counts declared once, each beside the metric it is reported
//! as. It makes the struct of `u64` fields the system bumps as it runs (`t.evictions += 1`, at
//! the cost of a field) and its `report`, which adds every field to `Counters` in the order
//! declared — the listing each system's `System::counters` used to repeat by hand. Not here:
//! counts derived from several fields, ratios and expectations (`counters` adds those itself).

/// `totals! { struct Totals { field => METRIC, ... } }`: see the module. Exported at the crate's
/// root (`use smr_kernel::totals;`), as Cargo exports every macro of a crate.
#[macro_export]
macro_rules! totals {
    ($(#[$attr:meta])* struct $name:ident { $($(#[$field_attr:meta])* $field:ident => $metric:path),* $(,)? }) => {
        $(#[$attr])*
        #[derive(Clone, Copy, Debug, Default)]
        struct $name {
            $($(#[$field_attr])* $field: u64,)*
        }

        impl $name {
            /// Adds every count to `out` under its metric, in the order declared.
            fn report(&self, out: &mut $crate::metrics::Counters) {
                $(out.add(&$metric, self.$field);)*
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use crate::metrics::{Counters, Metric, Unit};

    static FIRST: Metric = Metric::new("first_count", Unit::Count, "a first count");
    static SECOND: Metric = Metric::new("second_bytes", Unit::Bytes, "a second count");

    totals! {
        /// Two counts.
        struct Two {
            first => FIRST,
            second => SECOND,
        }
    }

    /// Each field reaches its own metric (swapped metrics or a dropped field would fail).
    #[test]
    fn each_field_is_reported_under_its_metric() {
        let mut out = Counters::default();
        Two { first: 3, second: 5 }.report(&mut out);
        let values: Vec<(&str, u64)> = out.iter().map(|(m, v)| (m.name, v)).collect();
        assert_eq!(values, [("first_count", 3), ("second_bytes", 5)]);
    }
}
