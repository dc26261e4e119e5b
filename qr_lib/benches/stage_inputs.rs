//! Every stage's input for a set of texts, shared by the `core` and
//! `instructions` benches: each stage runs alone on the previous one's output.

use qr_lib::stages::*;

pub struct StageInputs {
    pub data: Vec<DataCodewords>,
    pub codewords: Vec<Codewords>,
    pub placed: Vec<Placed>,
    pub symbols: Vec<Symbol>,
    pub images: Vec<Image>,
    pub pngs: Vec<Vec<u8>>,
}

pub fn stage_inputs(texts: &[String]) -> StageInputs {
    let data: Vec<DataCodewords> = texts
        .iter()
        .map(|t| segment(t.as_bytes()).unwrap())
        .collect();
    let codewords: Vec<Codewords> = data.iter().map(error_correction).collect();
    let placed: Vec<Placed> = codewords.iter().map(place).collect();
    let symbols: Vec<Symbol> = placed.iter().map(choose_mask).collect();
    let images: Vec<Image> = symbols.iter().map(raster).collect();
    let pngs: Vec<Vec<u8>> = images.iter().map(png).collect();
    StageInputs {
        data,
        codewords,
        placed,
        symbols,
        images,
        pngs,
    }
}
