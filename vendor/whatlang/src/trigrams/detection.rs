use hashbrown::HashMap;

use super::utils::get_ranked_trigrams;
use super::{ARABIC_LANGS, CYRILLIC_LANGS, DEVANAGARI_LANGS, HEBREW_LANGS, LATIN_LANGS};
#[cfg(test)]
use super::LangProfile;
use super::LangProfileList;
use super::{MAX_TOTAL_DISTANCE, MAX_TRIGRAM_DISTANCE, Trigram};
use crate::Lang;
use crate::core::{FilterList, Info, InternalQuery, Text, calculate_confidence};
use crate::scripts::grouping::MultiLangScript;

#[derive(Debug)]
pub struct RawOutcome {
    pub trigrams_count: usize,
    #[allow(dead_code)]
    pub raw_distances: Vec<(Lang, u32)>,
    pub scores: Vec<(Lang, f64)>,
}

#[inline]
pub fn detect(iquery: &InternalQuery) -> Option<Info> {
    let raw_outcome = raw_detect(iquery);
    let RawOutcome {
        trigrams_count,
        scores,
        ..
    } = raw_outcome;

    let mut raw_scores_iter = scores.into_iter();

    let opt_lang_score1 = raw_scores_iter.next();
    let opt_lang_score2 = raw_scores_iter.next();

    // TODO: Logic is duplicated in alphabets. Consider refactoring
    opt_lang_score1.map(|(lang1, score1)| {
        let script = iquery.multi_lang_script.to_script();
        let confidence = if let Some((_, score2)) = opt_lang_score2 {
            calculate_confidence(score1, score2, trigrams_count)
        } else {
            1.0
        };
        Info::new(script, lang1, confidence)
    })
}

#[inline]
pub fn raw_detect(iquery: &InternalQuery) -> RawOutcome {
    let lang_profile_list = script_to_lang_profile_list(iquery.multi_lang_script);
    calculate_scores_in_profiles(&iquery.text, iquery.filter_list, lang_profile_list)
}

fn script_to_lang_profile_list(script: MultiLangScript) -> LangProfileList {
    use MultiLangScript as MLS;
    match script {
        MLS::Latin => LATIN_LANGS,
        MLS::Cyrillic => CYRILLIC_LANGS,
        MLS::Arabic => ARABIC_LANGS,
        MLS::Devanagari => DEVANAGARI_LANGS,
        MLS::Hebrew => HEBREW_LANGS,
    }
}

#[inline]
fn calculate_scores_in_profiles(
    text: &Text,
    filter_list: &FilterList,
    lang_profile_list: LangProfileList,
) -> RawOutcome {
    let mut lang_distances: Vec<(Lang, u32)> = vec![];

    // Canopy's patch: the text's trigrams by rank (a trigram's index is its
    // position), not a map of their positions.
    let ranked = get_ranked_trigrams(&text.lowercase());
    let unique_trigrams_count = ranked.len();

    // Canopy's patch: every profile's distance in one pass over the text's
    // trigrams, through the profiles' inverted index, instead of a lookup of
    // each of every profile's trigrams in the text's (the same sums).
    let sums = profile_sums(lang_profile_list, &ranked);
    for (&(lang, _), &sum) in lang_profile_list.iter().zip(&sums) {
        if !filter_list.is_allowed(lang) {
            continue;
        }
        let dist = finish_distance(sum, unique_trigrams_count);
        lang_distances.push(((lang), dist));
    }

    lang_distances.sort_unstable_by_key(|(_, dist)| *dist);

    let max_dist = unique_trigrams_count as u32 * MAX_TRIGRAM_DISTANCE;

    let raw_scores = lang_distances
        .iter()
        .map(|&(lang, distance)| (lang, distance_to_raw_score(distance, max_dist)))
        .collect();

    RawOutcome {
        trigrams_count: unique_trigrams_count,
        scores: raw_scores,
        raw_distances: lang_distances,
    }
}

/// Canopy's patch: where each trigram stands in each profile of a list:
/// trigram → (the profile's index in the list, the trigram's position in
/// it), one entry per occurrence. Built once per list.
type ProfileIndex = HashMap<Trigram, Vec<(u16, u16)>>;

fn profile_index(lang_profile_list: LangProfileList) -> &'static ProfileIndex {
    use std::sync::OnceLock;
    static INDEXES: [OnceLock<ProfileIndex>; 5] = [const { OnceLock::new() }; 5];
    let lists = [LATIN_LANGS, CYRILLIC_LANGS, ARABIC_LANGS, DEVANAGARI_LANGS, HEBREW_LANGS];
    let slot = lists
        .iter()
        .position(|list| std::ptr::eq(*list, lang_profile_list))
        .expect("a profile list of the trigram scripts");
    INDEXES[slot].get_or_init(|| {
        let mut index = ProfileIndex::new();
        for (l, &(_, lang_trigrams)) in lang_profile_list.iter().enumerate() {
            for (i, &trigram) in lang_trigrams.iter().enumerate() {
                index.entry(trigram).or_default().push((l as u16, i as u16));
            }
        }
        index
    })
}

/// Canopy's patch: for each profile of the list, the sum that
/// `calculate_distance` adds up: `MAX_TRIGRAM_DISTANCE` for each of its
/// trigrams the text lacks, the distance between the two positions for each
/// it has (wrapping, as that sum's `u32` additions in a release build).
fn profile_sums(
    lang_profile_list: LangProfileList,
    ranked: &[Trigram],
) -> Vec<u32> {
    let mut sums: Vec<u32> = lang_profile_list
        .iter()
        .map(|(_, lang_trigrams)| (lang_trigrams.len() as u32).wrapping_mul(MAX_TRIGRAM_DISTANCE))
        .collect();
    let index = profile_index(lang_profile_list);
    for (n, trigram) in ranked.iter().enumerate() {
        if let Some(postings) = index.get(trigram) {
            for &(l, i) in postings {
                let dist = (n as i32 - i32::from(i)).unsigned_abs();
                let sum = &mut sums[usize::from(l)];
                *sum = sum.wrapping_sub(MAX_TRIGRAM_DISTANCE).wrapping_add(dist);
            }
        }
    }
    sums
}

/// Canopy's patch: `calculate_distance`'s last steps, on the sum of
/// [`profile_sums`].
#[inline]
fn finish_distance(mut total_dist: u32, unique_trigrams_count: usize) -> u32 {
    let count = unique_trigrams_count as u32;

    if MAX_TRIGRAM_DISTANCE > count {
        let delta = MAX_TRIGRAM_DISTANCE - count;
        total_dist = total_dist.wrapping_sub(delta * MAX_TRIGRAM_DISTANCE);
    }

    total_dist.clamp(0, MAX_TOTAL_DISTANCE)
}

// Canopy's patch: the distance as published, which `profile_sums` and
// `finish_distance` compute without it; kept for the tests below.
#[cfg(test)]
#[inline]
fn calculate_distance(lang_trigrams: LangProfile, text_trigrams: &HashMap<Trigram, u32>) -> u32 {
    let mut total_dist = 0u32;

    for (i, &trigram) in lang_trigrams.iter().enumerate() {
        let dist = match text_trigrams.get(&trigram) {
            Some(&n) => (n as i32 - i as i32).unsigned_abs(),
            None => MAX_TRIGRAM_DISTANCE,
        };
        total_dist += dist;
    }

    let count = text_trigrams.len() as u32;

    if MAX_TRIGRAM_DISTANCE > count {
        let delta = MAX_TRIGRAM_DISTANCE - count;
        total_dist -= delta * MAX_TRIGRAM_DISTANCE;
    }

    total_dist.clamp(0, MAX_TOTAL_DISTANCE)
}

#[inline]
fn distance_to_raw_score(distance: u32, max_distance: u32) -> f64 {
    let similarity = max_distance - distance;
    similarity as f64 / max_distance as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_when_german_is_given() {
        let text = "Die Ordnung muss für immer in diesem Codebase bleiben";
        let iq = InternalQuery {
            text: Text::new(text),
            filter_list: &FilterList::default(),
            multi_lang_script: MultiLangScript::Latin,
        };
        let raw_outcome = raw_detect(&iq);

        assert_eq!(raw_outcome.trigrams_count, 50);

        let &(first_lang, first_score) = raw_outcome.scores.first().unwrap();
        let &(_last_lang, last_score) = raw_outcome.scores.last().unwrap();

        assert_eq!(first_lang, Lang::Deu);

        assert!(first_score >= 0.0);
        assert!(first_score <= 1.0);

        assert!(last_score >= 0.0);
        assert!(last_score <= 1.0);
    }
}
