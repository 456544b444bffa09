#![no_main]
//! Any webhook body: parsing never panics.
libfuzzer_sys::fuzz_target!(|body: &[u8]| {
    let _ = tendero::channels::whatsapp::parse_payload(body);
});
