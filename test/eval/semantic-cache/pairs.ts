/**
 * Questions a shop's customers ask, in pairs: a question asked first (its answer is stored) and a
 * later one, either the same question in other words (a hit is right) or a different question on
 * the same subject (a hit is a false hit: the customer would get another question's answer).
 * The held-out pairs are never looked at when choosing a threshold.
 */
export interface CachePair {
  stored: string;
  asked: string;
  same: boolean;
}

const same = (stored: string, asked: string): CachePair => ({ stored, asked, same: true });
const other = (stored: string, asked: string): CachePair => ({ stored, asked, same: false });

export const DEVELOPMENT: CachePair[] = [
  same(
    'How long does shipping to Germany take?',
    'How many days until an order arrives in Germany?',
  ),
  same(
    'Can I return shoes that I have already worn?',
    'Is it possible to send back shoes I wore once?',
  ),
  same('Do you ship to Canada?', 'Can I get my order delivered to Canada?'),
  same('What payment methods do you accept?', 'Which ways can I pay for my order?'),
  same('How do I reset my password?', 'I forgot my password, how can I change it?'),
  same('Where is my order?', 'How can I track my package?'),
  same('Are your jackets waterproof?', 'Will your jackets keep me dry in the rain?'),
  same(
    'Can I change the delivery address after ordering?',
    'Is it possible to update my shipping address once the order is placed?',
  ),
  same('Do you offer gift cards?', 'Can I buy a gift voucher?'),
  same('How do I cancel my subscription?', 'What is the way to end my membership?'),
  same(
    'What size should I order if I am between two sizes?',
    'I am between sizes, which one should I pick?',
  ),
  same('Is there a student discount?', 'Do students get a reduced price?'),
  other('How long does shipping to Germany take?', 'How much does shipping to Germany cost?'),
  other(
    'Can I return shoes that I have already worn?',
    'Can I exchange shoes for a different size?',
  ),
  other('Do you ship to Canada?', 'Do you have a store in Canada?'),
  other('What payment methods do you accept?', 'When will my card be charged?'),
  other('How do I reset my password?', 'How do I delete my account?'),
  other('Where is my order?', 'Why was my order cancelled?'),
  other('Are your jackets waterproof?', 'Are your jackets machine washable?'),
  other(
    'Can I change the delivery address after ordering?',
    'Can I add an item to an order I already placed?',
  ),
  other('Do you offer gift cards?', 'Do gift cards expire?'),
  other('How do I cancel my subscription?', 'How do I pause my subscription for a month?'),
  other('What size should I order if I am between two sizes?', 'Do your shoes run small?'),
  other('Is there a student discount?', 'Is there a discount on my first order?'),
];

export const HELD_OUT: CachePair[] = [
  same('What are your opening hours on Sunday?', 'When are you open on Sundays?'),
  same('How do I apply a discount code?', 'Where do I enter my promo code at checkout?'),
  same('Can I pay in installments?', 'Is it possible to split the payment into several parts?'),
  same(
    'How long is the warranty on your bikes?',
    'For how many years are your bicycles guaranteed?',
  ),
  same('Do you deliver on weekends?', 'Will my package be delivered on Saturday or Sunday?'),
  same('How do I contact customer service?', 'What is the best way to reach your support team?'),
  same('Is this tent suitable for winter camping?', 'Can I use this tent in the snow in winter?'),
  same('Can I pick up my order in the store?', 'Is in-store pickup available for online orders?'),
  same(
    'How do I unsubscribe from your newsletter?',
    'I want to stop getting your marketing emails.',
  ),
  same('Are your products vegan?', 'Do your items contain any animal products?'),
  same(
    'When will the blue backpack be back in stock?',
    'Is the blue backpack going to be available again soon?',
  ),
  same('Do you offer free returns?', 'Is returning an item free of charge?'),
  other('What are your opening hours on Sunday?', 'What are your opening hours on Monday?'),
  other('How do I apply a discount code?', 'Why is my discount code not working?'),
  other('Can I pay in installments?', 'Can I pay with PayPal?'),
  other('How long is the warranty on your bikes?', 'How much does a bike service cost?'),
  other('Do you deliver on weekends?', 'Do you deliver to PO boxes?'),
  other('How do I contact customer service?', 'How do I leave a review for a product?'),
  other('Is this tent suitable for winter camping?', 'How much does this tent weigh?'),
  other('Can I pick up my order in the store?', 'Can I return an online order in the store?'),
  other('How do I unsubscribe from your newsletter?', 'How do I sign up for your newsletter?'),
  other('Are your products vegan?', 'Are your products made in Europe?'),
  other('When will the blue backpack be back in stock?', 'How big is the blue backpack?'),
  other('Do you offer free returns?', 'Do you offer free shipping?'),
];
