/**
 * The retrieval question set: five small businesses' own documents (in the language each writes
 * in) and the questions their customers ask, in English and German, each with the document that
 * answers it. Written as customers phrase things, not from the engine's vocabulary: many
 * questions share no content word with their answer ("what does a full service cost" for "Full
 * service: 89 EUR"). Never tuned against: a question is fixed once written; new ones are added.
 */

export interface Article {
  id: string;
  title: string;
  body: string;
}

export interface Question {
  language: 'en' | 'de';
  text: string;
  /** The document that answers it. */
  answer: string;
}

export interface Business {
  collection: string;
  name: string;
  articles: Article[];
  questions: Question[];
}

const bikeShop: Business = {
  collection: 'radwerk-leipzig',
  name: 'Radwerk, a bicycle repair shop in Leipzig (documents in English)',
  articles: [
    {
      id: 'full-service',
      title: 'Full service',
      body: 'Full service: 89 EUR. Brakes and gears adjusted, wheels trued, chain cleaned and oiled, all bolts checked. Ready in two working days.',
    },
    {
      id: 'basic-check',
      title: 'Basic check',
      body: 'Basic check: 39 EUR. Tyre pressure, brake pads and lights checked, gears tuned. Usually done while you wait (30 minutes).',
    },
    {
      id: 'flat-tyre',
      title: 'Puncture repair',
      body: 'Inner tube replaced: 15 EUR plus the tube (8 EUR). Tubeless tyres sealed for 20 EUR.',
    },
    {
      id: 'hours',
      title: 'Opening hours',
      body: 'Monday to Friday 9:00 to 18:30, Saturday 10:00 to 14:00. Closed on Sundays and public holidays.',
    },
    {
      id: 'address',
      title: 'Finding us',
      body: 'Radwerk, Karl-Liebknecht-Straße 54, 04275 Leipzig. Tram 10 or 11 to Südplatz; bike racks in the courtyard.',
    },
    {
      id: 'ebike',
      title: 'E-bikes',
      body: 'We service e-bikes with Bosch and Shimano motors: software updates, battery diagnostics (25 EUR). We do not repair battery cells.',
    },
    {
      id: 'rental',
      title: 'Rental bikes',
      body: 'City bikes rent for 12 EUR a day or 49 EUR a week; a replacement bike is free while yours is with us for a full service.',
    },
    {
      id: 'payment',
      title: 'Payment',
      body: 'We take cash, girocard, Visa and Mastercard. Company invoices on request.',
    },
    {
      id: 'storage',
      title: 'Winter storage',
      body: 'We keep your bike dry and safe from November to March for 60 EUR, serviced before you pick it up.',
    },
  ],
  questions: [
    { language: 'en', text: 'what does a full service cost', answer: 'full-service' },
    { language: 'en', text: 'I have a flat, how much to fix it?', answer: 'flat-tyre' },
    { language: 'en', text: 'Are you open on Sunday?', answer: 'hours' },
    { language: 'en', text: 'Can I borrow a bike while mine is being repaired?', answer: 'rental' },
    { language: 'en', text: 'Where is the workshop, which tram stop?', answer: 'address' },
    { language: 'en', text: 'Can you look at the motor of my electric bicycle?', answer: 'ebike' },
    { language: 'de', text: 'Was kostet eine große Inspektion?', answer: 'full-service' },
    { language: 'de', text: 'Kann ich mit Karte bezahlen?', answer: 'payment' },
    { language: 'de', text: 'Wann habt ihr samstags geöffnet?', answer: 'hours' },
    { language: 'de', text: 'Könnt ihr mein Rad über den Winter einlagern?', answer: 'storage' },
  ],
};

const salon: Business = {
  collection: 'salon-lindner',
  name: 'Salon Lindner, a hair salon in Dresden (documents in German)',
  articles: [
    {
      id: 'damen',
      title: 'Damenhaarschnitt',
      body: 'Waschen, Schneiden, Föhnen: 48 EUR bei kurzem Haar, 58 EUR bei langem Haar.',
    },
    {
      id: 'herren',
      title: 'Herrenhaarschnitt',
      body: 'Herrenschnitt mit Waschen 29 EUR, Maschinenschnitt 18 EUR, Bartpflege 12 EUR.',
    },
    {
      id: 'kinder',
      title: 'Kinder',
      body: 'Kinder bis 12 Jahre: 16 EUR. Wir nehmen uns Zeit, auch für den ersten Friseurbesuch.',
    },
    {
      id: 'farbe',
      title: 'Färben und Strähnen',
      body: 'Ansatzfarbe ab 45 EUR, Komplettfarbe ab 65 EUR, Strähnen ab 80 EUR, jeweils zuzüglich Schnitt.',
    },
    {
      id: 'zeiten',
      title: 'Öffnungszeiten',
      body: 'Dienstag bis Freitag 9 bis 19 Uhr, Samstag 8 bis 14 Uhr. Montag geschlossen.',
    },
    {
      id: 'absage',
      title: 'Termine absagen',
      body: 'Bitte sagen Sie spätestens 24 Stunden vorher ab. Bei späterer Absage berechnen wir 50 Prozent des Preises.',
    },
    {
      id: 'gutschein',
      title: 'Gutscheine',
      body: 'Gutscheine gibt es ab 20 EUR im Salon oder per E-Mail, drei Jahre gültig.',
    },
    {
      id: 'parken',
      title: 'Anfahrt und Parken',
      body: 'Königsbrücker Straße 12, Dresden-Neustadt. Kundenparkplätze im Hof, Zufahrt über die Jordanstraße.',
    },
  ],
  questions: [
    { language: 'de', text: 'Was kostet ein Haarschnitt für Männer?', answer: 'herren' },
    {
      language: 'de',
      text: 'Was passiert, wenn ich meinen Termin kurzfristig nicht wahrnehmen kann?',
      answer: 'absage',
    },
    { language: 'de', text: 'Habt ihr montags auf?', answer: 'zeiten' },
    {
      language: 'de',
      text: 'Kann ich jemandem einen Besuch bei euch schenken?',
      answer: 'gutschein',
    },
    { language: 'de', text: 'Wo kann ich mein Auto abstellen?', answer: 'parken' },
    { language: 'en', text: 'How much is a haircut for my son, he is eight?', answer: 'kinder' },
    { language: 'en', text: 'What does it cost to dye my hair?', answer: 'farbe' },
    { language: 'en', text: 'Can I cancel my appointment the same day?', answer: 'absage' },
    { language: 'en', text: 'price of a women cut with long hair', answer: 'damen' },
    { language: 'en', text: 'Do you sell gift cards?', answer: 'gutschein' },
  ],
};

const languageSchool: Business = {
  collection: 'lingua-hamburg',
  name: 'Lingua, a language school in Hamburg (documents in English)',
  articles: [
    {
      id: 'fees',
      title: 'Course fees',
      body: 'Group courses: 320 EUR for 10 weeks (two evenings a week). Private lessons: 55 EUR per 60 minutes.',
    },
    {
      id: 'levels',
      title: 'Levels',
      body: 'Courses run from A1 (beginners) to C1. A free placement test online tells you which level fits.',
    },
    {
      id: 'trial',
      title: 'Trial lesson',
      body: 'Your first lesson in any group course is free: come along and decide afterwards.',
    },
    {
      id: 'refund',
      title: 'Refunds',
      body: 'Cancel up to 7 days before the start for a full refund; after the first week we refund the weeks not yet taught, minus 30 EUR.',
    },
    {
      id: 'class-size',
      title: 'Class size',
      body: 'At most 8 learners per group, so everyone speaks in every lesson.',
    },
    {
      id: 'exams',
      title: 'Exam preparation',
      body: 'Preparation for Goethe, telc and TestDaF exams in small groups of four, 12 sessions for 390 EUR.',
    },
    {
      id: 'online',
      title: 'Online lessons',
      body: 'Every course is also offered live online over video; the material is the same.',
    },
    {
      id: 'location',
      title: 'Location',
      body: 'Lingua, Mönckebergstraße 7, 3rd floor, 20095 Hamburg, two minutes from the main station.',
    },
  ],
  questions: [
    { language: 'en', text: 'How much does a group course cost?', answer: 'fees' },
    {
      language: 'en',
      text: 'I know no German at all, is there something for me?',
      answer: 'levels',
    },
    { language: 'en', text: 'Can I try a class before paying?', answer: 'trial' },
    { language: 'en', text: 'How many students are in a class?', answer: 'class-size' },
    { language: 'en', text: 'I need to pass the TestDaF for university', answer: 'exams' },
    { language: 'de', text: 'Bekomme ich mein Geld zurück, wenn ich abbreche?', answer: 'refund' },
    { language: 'de', text: 'Kann ich auch von zu Hause aus teilnehmen?', answer: 'online' },
    { language: 'de', text: 'Was kostet Einzelunterricht?', answer: 'fees' },
    { language: 'de', text: 'Wie komme ich vom Hauptbahnhof zu euch?', answer: 'location' },
    {
      language: 'de',
      text: 'Welches Niveau habe ich? Gibt es einen Einstufungstest?',
      answer: 'levels',
    },
  ],
};

const bakery: Business = {
  collection: 'baeckerei-sommer',
  name: 'Bäckerei Sommer, a bakery and café in Freiburg (documents in German)',
  articles: [
    {
      id: 'oeffnung',
      title: 'Öffnungszeiten',
      body: 'Montag bis Samstag 6:30 bis 18 Uhr, Sonntag 8 bis 12 Uhr.',
    },
    {
      id: 'glutenfrei',
      title: 'Ohne Gluten',
      body: 'Glutenfreies Brot backen wir dienstags und freitags; bitte bis zum Vortag bestellen.',
    },
    {
      id: 'torten',
      title: 'Torten auf Bestellung',
      body: 'Hochzeits- und Geburtstagstorten bestellen Sie mindestens fünf Tage vorher; ab 45 EUR für 12 Stücke.',
    },
    {
      id: 'catering',
      title: 'Frühstück für Firmen',
      body: 'Belegte Brötchen und Kaffee für Besprechungen ab 10 Personen, geliefert im Stadtgebiet, 8,50 EUR pro Person.',
    },
    {
      id: 'wlan',
      title: 'Im Café',
      body: 'Kostenloses WLAN, 30 Sitzplätze, Terrasse im Sommer. Hunde sind willkommen.',
    },
    {
      id: 'vegan',
      title: 'Vegan',
      body: 'Alle Brote außer Milchbrötchen sind vegan; dazu täglich ein veganer Kuchen.',
    },
    {
      id: 'adresse',
      title: 'Adresse',
      body: 'Wiehre, Günterstalstraße 30, Freiburg. Straßenbahn 2 bis Klosterplatz.',
    },
  ],
  questions: [
    { language: 'de', text: 'Habt ihr Brot für Zöliakie-Betroffene?', answer: 'glutenfrei' },
    { language: 'de', text: 'Wie früh muss ich eine Hochzeitstorte bestellen?', answer: 'torten' },
    { language: 'de', text: 'Sind Hunde im Café erlaubt?', answer: 'wlan' },
    { language: 'de', text: 'Liefert ihr Frühstück ins Büro?', answer: 'catering' },
    { language: 'de', text: 'Seid ihr am Sonntag offen?', answer: 'oeffnung' },
    { language: 'en', text: 'Do you have bread without gluten?', answer: 'glutenfrei' },
    { language: 'en', text: 'Is there wifi so I can work there?', answer: 'wlan' },
    { language: 'en', text: 'Which of your breads contain no animal products?', answer: 'vegan' },
    { language: 'en', text: 'How much is a birthday cake?', answer: 'torten' },
    { language: 'en', text: 'What time do you open in the morning?', answer: 'oeffnung' },
  ],
};

const yoga: Business = {
  collection: 'yoga-nord',
  name: 'Yoga Nord, a yoga studio in Bremen (documents in English)',
  articles: [
    {
      id: 'passes',
      title: 'Prices',
      body: 'Drop-in class 16 EUR, 10-class card 140 EUR (valid six months), unlimited monthly 79 EUR.',
    },
    {
      id: 'first',
      title: 'New here?',
      body: 'Your first class is free. Arrive ten minutes early so we can show you around.',
    },
    {
      id: 'mats',
      title: 'What to bring',
      body: 'Mats, blocks and blankets are provided; bring comfortable clothes and a water bottle.',
    },
    {
      id: 'cancel',
      title: 'Booking and cancelling',
      body: 'Book in the app; cancel up to 6 hours before class, or the class is charged to your card.',
    },
    {
      id: 'private',
      title: 'Private sessions',
      body: 'One-to-one sessions at the studio or at home: 70 EUR for 60 minutes, 95 EUR for 90 minutes.',
    },
    {
      id: 'prenatal',
      title: 'Prenatal yoga',
      body: 'Gentle classes for pregnant women on Tuesdays at 17:30, from the second trimester.',
    },
    {
      id: 'schedule',
      title: 'Timetable',
      body: 'Classes every weekday at 7:00, 12:15 and 18:30; weekends at 10:00.',
    },
  ],
  questions: [
    { language: 'en', text: 'How much is one class if I just come once?', answer: 'passes' },
    { language: 'en', text: 'Do I need my own mat?', answer: 'mats' },
    { language: 'en', text: "I'm pregnant, can I still do yoga with you?", answer: 'prenatal' },
    { language: 'en', text: 'Is the first visit free of charge?', answer: 'first' },
    { language: 'en', text: 'Are there early morning classes before work?', answer: 'schedule' },
    { language: 'de', text: 'Was kostet eine Einzelstunde zu Hause?', answer: 'private' },
    {
      language: 'de',
      text: 'Was passiert, wenn ich nicht zur gebuchten Stunde komme?',
      answer: 'cancel',
    },
    { language: 'de', text: 'Gibt es eine Zehnerkarte?', answer: 'passes' },
    { language: 'de', text: 'Was muss ich zur ersten Stunde mitbringen?', answer: 'mats' },
    { language: 'de', text: 'Gibt es Kurse am Wochenende?', answer: 'schedule' },
  ],
};

export const BUSINESSES: Business[] = [bikeShop, salon, languageSchool, bakery, yoga];
