//! Hostile parameters for the workload generators, generated: YCSB's core workload properties
//! and the arrival processes' Table 4.1 parameters, each given text near and past its limits.
//! Reading them either fails with an error naming the parameter or gives a generator whose
//! output is in range (operations on loaded or inserted records; arrival times sorted and
//! below the duration), never a panic, and never an allocation larger than 300 MiB (this
//! binary's allocator refuses one, which aborts the test). A valid schedule of many arrivals
//! is a long run, not a bad value: schedules of more than `LONG_RUN` expected arrivals are
//! checked (refused or accepted) but not drawn.
//!
//! Cases per property: `PROPTEST_CASES`, or proptest's 256.

use proptest::prelude::*;
use smr_core::alloc_bound::Bounded;
use smr_core::param_spec::specs;
use smr_workload::arrival::{ArrivalSpec, PARAMS};
use smr_workload::ycsb::{CoreWorkload, OperationStream, PRESETS};

#[global_allocator]
static ALLOCATOR: Bounded<{ 300 << 20 }> = Bounded;

/// Expected arrivals above which a valid schedule is not drawn.
const LONG_RUN: f64 = 1e5;

const YCSB_PROPERTIES: &[&str] = &[
    "recordcount",
    "operationcount",
    "fieldcount",
    "fieldlength",
    "readproportion",
    "updateproportion",
    "insertproportion",
    "scanproportion",
    "readmodifywriteproportion",
    "requestdistribution",
    "zipfianconstant",
    "minscanlength",
    "maxscanlength",
    "scanlengthdistribution",
    "hotspotdatafraction",
    "hotspotopnfraction",
    "insertorder",
    "zeropadding",
];

/// Text a parameter meets: numbers of every size and sign, special floats, the names of the
/// choices, words and control characters.
fn hostile_text() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec![
            "",
            "0",
            "-1",
            "1",
            "2",
            "0.5",
            "1.0000001",
            "0.9999999",
            "1e300",
            "-1e300",
            "1e-300",
            "nan",
            "inf",
            "-inf",
            "4294967295",
            "4294967296",
            "18446744073709551615",
            "18446744073709551616",
            "1e30",
            "uniform",
            "zipfian",
            "latest",
            "hotspot",
            "ordered",
            "hashed",
            "pareto",
            "exponential",
            "constant",
            "poisson",
            "selfsimilar",
            "diurnal",
            "\u{0}\u{7}\u{1b}[2J",
        ])
        .prop_map(str::to_string),
        any::<u64>().prop_map(|n| n.to_string()),
        any::<f64>().prop_map(|x| x.to_string()),
        (0u64..2000).prop_map(|n| n.to_string()),
        (0.0f64..3.0).prop_map(|x| x.to_string()),
        "\\PC{0,12}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::default())]

    /// One to three hostile properties over a preset: an error naming a property, or a stream
    /// of operations on records that exist.
    #[test]
    fn hostile_ycsb_properties_give_an_error_or_a_stream_in_range(preset in prop::sample::select(PRESETS.to_vec()), given in prop::collection::vec((prop::sample::select(YCSB_PROPERTIES.to_vec()), hostile_text()), 1..4), seed in any::<u64>()) {
        let mut workload = CoreWorkload::preset(preset).unwrap();
        let set = given.iter().try_for_each(|(name, value)| workload.set(name, value));
        let stream = set.and_then(|()| workload.validate()).and_then(|()| OperationStream::new(&workload, seed));
        match stream {
            Err(e) => {
                let text = e.to_string();
                prop_assert!(text.starts_with("invalid parameter ") && text.len() < 600, "{text}");
                prop_assert!(!text.contains('\u{0}') && !text.contains('\u{7}'), "raw control bytes echoed: {text}");
            }
            Ok(mut ops) => {
                for _ in 0..200 {
                    let op = ops.next_op();
                    prop_assert!(op.record < workload.record_count + 200, "{op:?} with {} records", workload.record_count);
                }
            }
        }
    }

    /// Hostile values for the arrival parameters: an error naming one, or a schedule that is
    /// sorted and below the duration.
    #[test]
    fn hostile_arrival_parameters_give_an_error_or_a_schedule_in_range(process in prop::sample::select(vec!["constant", "poisson", "selfsimilar", "diurnal"]), given in prop::collection::vec((prop::sample::select(specs(PARAMS).skip(1).map(|spec| spec.key).collect::<Vec<_>>()), hostile_text()), 1..4), seed in any::<u64>()) {
        let mut params = vec![("arrivalgenerator".to_string(), process.to_string()), ("target".to_string(), "50".to_string()), ("duration".to_string(), "2".to_string()),
                              ("ss.bias".to_string(), "0.7".to_string()), ("diurnal.modulation".to_string(), "20".to_string()), ("diurnal.cyclelength".to_string(), "0.01".to_string()),
                              ("diurnal.distribution.shape".to_string(), "1.5".to_string())];
        params.extend(given.iter().map(|(name, value)| (name.to_string(), value.clone())));
        match ArrivalSpec::from_params(&params) {
            Err(e) => {
                let text = e.to_string();
                prop_assert!(text.starts_with("invalid parameter ") && text.len() < 600, "{text}");
            }
            Ok(spec) if spec.rate * spec.duration_s > LONG_RUN => {}
            Ok(spec) => {
                let end = spec.duration_s * 1e9;
                match spec.schedule(seed) {
                    Ok(times) => {
                        prop_assert!(times.windows(2).all(|w| w[0] <= w[1]));
                        prop_assert!(times.iter().all(|&t| (t as f64) < end));
                    }
                    // A diurnal process may draw more than its cap; it says so.
                    Err(e) => prop_assert!(e.to_string().contains("arrivals"), "{e}"),
                }
            }
        }
    }
}
