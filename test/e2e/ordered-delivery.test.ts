import { describeOrderedDelivery } from '../suites/ordered-delivery';
import { embedded } from '../suites/target';

describeOrderedDelivery(embedded);
